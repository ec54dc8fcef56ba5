package caddymodule

import (
	"context"
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
	out := &gateway.Outcome{TPP: "PSDNO-FSA-987654321", Start: time.Now()}
	out.Decisions[gateway.CheckHygiene] = gateway.DecisionPass
	out.Decisions[gateway.CheckSignature] = gateway.DecisionFail
	out.Timings[gateway.CheckHygiene] = 2 * time.Microsecond
	out.Timings[gateway.CheckSignature] = 30 * time.Microsecond
	out.Err = bgerror.New(bgerror.CodeSignatureInvalid, "x")
	emitSpans(ctx, out)
	parent.End()

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans", len(spans))
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
	}
	sig := byName["obgw.signature"]
	if sig == nil || sig.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("signature span missing or not a child: %v", byName)
	}
	attrs := map[string]string{}
	for _, a := range sig.Attributes() {
		attrs[string(a.Key)] = a.Value.AsString()
	}
	if attrs["obgw.decision"] != "fail" || attrs["obgw.tpp"] != "PSDNO-FSA-987654321" || attrs["obgw.error"] != "SIGNATURE_INVALID" {
		t.Fatalf("attributes %v", attrs)
	}
	if d := sig.EndTime().Sub(sig.StartTime()); d != 30*time.Microsecond {
		t.Fatalf("signature span lasted %s", d)
	}
	if byName["obgw.hygiene"].EndTime() != sig.StartTime() {
		t.Fatal("spans are not laid end to end")
	}

	// Without a recording span nothing is emitted and nothing is timed.
	if tracing(context.Background()) {
		t.Fatal("tracing without a span")
	}
}
