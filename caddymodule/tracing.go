package caddymodule

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/obgw/obgw/gateway"
)

// tracerName is the instrumentation scope of obgw's spans.
const tracerName = "github.com/obgw/obgw/gateway"

// tracing reports whether the request is in a recording trace span (Caddy's
// tracing handler in front), so the pipeline times its checks only then.
func tracing(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// emitSpans records one child span per check that ran, under the request's
// span and through that span's own TracerProvider, with the check's
// decision and the TPP's organizationIdentifier as attributes. The spans
// are made after the fact from the pipeline's timings, so verification
// itself carries no tracing cost beyond reading the clock between checks.
func emitSpans(ctx context.Context, out *gateway.Outcome) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() || out.Start.IsZero() {
		return
	}
	tracer := parent.TracerProvider().Tracer(tracerName)
	at := out.Start
	for _, c := range gateway.Checks() {
		d := out.Decision(c)
		if d == gateway.DecisionNone {
			continue
		}
		end := at.Add(out.Timings[c])
		_, span := tracer.Start(ctx, "obgw."+c.String(), trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindInternal))
		attrs := []attribute.KeyValue{attribute.String("obgw.decision", d.String())}
		if out.TPP != "" {
			attrs = append(attrs, attribute.String("obgw.tpp", out.TPP))
		}
		if d == gateway.DecisionFail && out.Err != nil {
			attrs = append(attrs, attribute.String("obgw.error", out.Err.Code))
		}
		span.SetAttributes(attrs...)
		span.End(trace.WithTimestamp(end))
		at = end
	}
}
