package caddymodule

import (
	"context"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/obgw/obgw/gateway"
)

// tracerName is the instrumentation scope of obgw's spans.
const tracerName = "github.com/obgw/obgw/gateway"

// tracing reports whether the request is in a recording trace span (Caddy's
// tracing handler in front), so the pipeline times its checks only then.
func tracing(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// Attribute keys of the check spans. Values are names, decisions, modes,
// the TPP's organizationIdentifier and Berlin Group codes: never a PSU
// identifier, a header value, a signature or a certificate.
const (
	attrCheck    = attribute.Key("obgw.check")
	attrDecision = attribute.Key("obgw.decision")
	attrMode     = attribute.Key("obgw.mode")
	attrTPP      = attribute.Key("obgw.tpp")
	attrError    = attribute.Key("obgw.error")
)

// emitSpans records one child span obgw.<check> per check that ran, under
// the request's span and through that span's own TracerProvider (Caddy's
// tracing handler sets no global one), with the check, its decision, its
// mode under policy p, the TPP's organizationIdentifier and, on the check
// that refused the request, the error code. The spans are made after the
// fact from the pipeline's timings, laid end to end from out.Start, so
// verification itself carries no tracing cost beyond reading the clock
// between checks; the check that stopped the pipeline lasts until out.End.
// Spans of the services a check calls (Redis) are therefore siblings of
// the check's span, within its time, not its children.
func emitSpans(ctx context.Context, out *gateway.Outcome, p *gateway.Policy) {
	if out.Start.IsZero() {
		return // not timed: no span was recording
	}
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return
	}
	tracer := parent.TracerProvider().Tracer(tracerName)
	at := out.Start
	for _, c := range gateway.Checks() {
		d := out.Decision(c)
		if d == gateway.DecisionNone || d == gateway.DecisionSkip {
			continue // did not run
		}
		start := at
		at = at.Add(out.Timings[c])
		end := at
		if d == gateway.DecisionFail && end.Before(out.End) {
			end = out.End
		}
		attrs := make([]attribute.KeyValue, 0, 5)
		attrs = append(attrs, attrCheck.String(c.String()), attrDecision.String(d.String()), attrMode.String(p.Modes[c].String()))
		if out.TPP != "" {
			attrs = append(attrs, attrTPP.String(out.TPP))
		}
		if d == gateway.DecisionFail && out.Err != nil {
			attrs = append(attrs, attrError.String(out.Err.Code))
		}
		_, span := tracer.Start(ctx, "obgw."+c.String(), trace.WithTimestamp(start),
			trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
		span.End(trace.WithTimestamp(end))
	}
}

// contextTracerProvider is the TracerProvider of instrumentations that take
// one when they are set up (go-redis's hooks, on a client that outlives
// configurations): each span it starts goes through the TracerProvider of
// the span in the context, as emitSpans's do, and only when that span is
// recording. Caddy's tracing handler builds its provider when a
// configuration loads and installs no global one, so there is none to hand
// over in advance; without a recording span, Start returns the context as
// it is and a span that records nothing, allocating nothing.
type contextTracerProvider struct{ embedded.TracerProvider }

// Tracer returns the tracer of the instrumentation scope name.
func (contextTracerProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return contextTracer{name: name, opts: opts}
}

// contextTracer is a contextTracerProvider's tracer.
type contextTracer struct {
	embedded.Tracer
	name string
	opts []trace.TracerOption
}

// nonRecording is what contextTracer.Start returns without a recording span.
var nonRecording trace.Span = noop.Span{}

// Start starts a span under the context's span, through its provider, when
// that span is recording.
func (t contextTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nonRecording
	}
	return parent.TracerProvider().Tracer(t.name, t.opts...).Start(ctx, name, opts...)
}

// traceRedis gives each command of client a span under the request's, when
// the request is traced (contextTracerProvider): named for the command,
// without its arguments, which hold request ids and PSU identifiers
// (limiter keys), and without the caller's file and line, which cost a
// stack walk per command.
func traceRedis(client redis.UniversalClient) error {
	return redisotel.InstrumentTracing(client,
		redisotel.WithTracerProvider(contextTracerProvider{}),
		redisotel.WithDBStatement(false),
		redisotel.WithCallerEnabled(false))
}
