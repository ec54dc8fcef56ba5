package caddymodule

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway"
)

func TestEmitSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	if !tracing(ctx) {
		t.Fatal("a recording span not seen")
	}
	start := time.Now()
	out := &gateway.Outcome{TPP: "PSDNO-FSA-987654321", Start: start, End: start.Add(50 * time.Microsecond)}
	out.Decisions[gateway.CheckHygiene] = gateway.DecisionPass
	out.Decisions[gateway.CheckDate] = gateway.DecisionReport
	out.Decisions[gateway.CheckQWAC] = gateway.DecisionSkip
	out.Decisions[gateway.CheckSignature] = gateway.DecisionFail
	out.Timings[gateway.CheckHygiene] = 2 * time.Microsecond
	out.Timings[gateway.CheckDate] = 3 * time.Microsecond
	out.Err = bgerror.New(bgerror.CodeSignatureInvalid, "x")
	var p gateway.Policy
	p.Modes[gateway.CheckDate] = gateway.ModeReportOnly
	emitSpans(ctx, out, &p)
	parent.End()

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	if len(byName) != 4 || byName["obgw.qwac"] != nil {
		t.Fatalf("spans %v: want request, hygiene, date and signature (a skipped check did not run)", byName)
	}
	attrs := func(s sdktrace.ReadOnlySpan) map[string]string {
		m := map[string]string{}
		for _, a := range s.Attributes() {
			m[string(a.Key)] = a.Value.AsString()
		}
		return m
	}
	for _, tc := range []struct {
		check, decision, mode, err string
		start, end                 time.Duration
	}{
		{"hygiene", "pass", "enforce", "", 0, 2 * time.Microsecond},
		{"date", "report", "report_only", "", 2 * time.Microsecond, 5 * time.Microsecond},
		// The check that stopped the pipeline lasts until it stopped.
		{"signature", "fail", "enforce", "SIGNATURE_INVALID", 5 * time.Microsecond, 50 * time.Microsecond},
	} {
		s := byName["obgw."+tc.check]
		if s == nil || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Fatalf("%s span missing or not a child of the request's: %v", tc.check, s)
		}
		want := map[string]string{"obgw.check": tc.check, "obgw.decision": tc.decision, "obgw.mode": tc.mode, "obgw.tpp": "PSDNO-FSA-987654321"}
		if tc.err != "" {
			want["obgw.error"] = tc.err
		}
		got := attrs(s)
		if len(got) != len(want) {
			t.Errorf("%s attributes %v, want %v", tc.check, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s attribute %s = %q, want %q", tc.check, k, got[k], v)
			}
		}
		if s.StartTime() != start.Add(tc.start) || s.EndTime() != start.Add(tc.end) {
			t.Errorf("%s span %s..%s, want %s..%s", tc.check, s.StartTime().Sub(start), s.EndTime().Sub(start), tc.start, tc.end)
		}
	}

	// Without a recording span nothing is emitted and nothing is timed.
	if tracing(context.Background()) {
		t.Fatal("tracing without a span")
	}
	n := len(rec.Ended())
	emitSpans(context.Background(), out, &p)
	emitSpans(ctx, &gateway.Outcome{}, &p)
	if len(rec.Ended()) != n {
		t.Fatal("spans emitted without a recording span or timings")
	}
}

func TestContextTracerProvider(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	tracer := contextTracerProvider{}.Tracer("scope")

	child, span := tracer.Start(ctx, "child")
	if !span.IsRecording() || child == ctx {
		t.Fatal("no recording child under a recording span")
	}
	span.End()
	got := rec.Ended()
	if len(got) != 1 || got[0].Parent().SpanID() != parent.SpanContext().SpanID() || got[0].InstrumentationScope().Name != "scope" {
		t.Fatalf("child span %v", got)
	}

	// Without a recording span: the context as it is, nothing recorded,
	// nothing allocated.
	bg := context.Background()
	if c, s := tracer.Start(bg, "x"); c != bg || s.IsRecording() {
		t.Fatal("a span without a recording parent")
	}
	if n := testing.AllocsPerRun(100, func() { _, s := tracer.Start(bg, "x"); s.End() }); n != 0 {
		t.Errorf("%.0f allocations without a recording span", n)
	}
	parent.End()
	if len(rec.Ended()) != 2 {
		t.Fatalf("%d spans", len(rec.Ended()))
	}
}

// TestRedisSpans: the replay store's command makes a span under the
// request's, named for the command, without its key (which holds the
// request id). CI starts Redis on 127.0.0.1:6379; OBGW_SKIP_REDIS=1 skips.
func TestRedisSpans(t *testing.T) {
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	st, err := newSharedState("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Destruct()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	key := "tracing-test-" + time.Now().Format(time.RFC3339Nano)
	if _, err := st.replay.Claim(ctx, key, time.Second); err != nil {
		t.Fatalf("Redis at 127.0.0.1:6379: %v (start redis-server, or set OBGW_SKIP_REDIS=1)", err)
	}
	parent.End()
	var cmd sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "set" {
			cmd = s
		}
		for _, a := range s.Attributes() {
			if strings.Contains(a.Value.String(), key) {
				t.Errorf("%s: attribute %s holds the key: %s", s.Name(), a.Key, a.Value.String())
			}
		}
	}
	if cmd == nil || cmd.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("no set span under the request's: %v", rec.Ended())
	}
}
