package backend

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/obgw/obgw/bgerror"
)

// tracerName is the instrumentation scope of the backend's spans.
const tracerName = "github.com/obgw/obgw/backend"

// Attribute keys of the backend's span. Values are the route (its pattern,
// never the ids in the path), the TPP's organizationIdentifier and Berlin
// Group codes: never a PSU identifier or a token.
const (
	attrMethod = attribute.Key("http.request.method")
	attrRoute  = attribute.Key("http.route")
	attrTPP    = attribute.Key("obgw.tpp")
	attrError  = attribute.Key("obgw.error")
)

// startSpan opens the span of the route pattern ("GET /v1/accounts/{id}")
// under the request's span, when that span is recording (Caddy's tracing
// handler in front, here or in the gateway whose trace context the request
// carries), through its own TracerProvider. The request it returns carries
// the new span, so the store's spans are its children. Without a recording
// span it returns r and a nil span, having cost one context look-up.
func startSpan(r *http.Request, pattern string) (*http.Request, trace.Span) {
	parent := trace.SpanFromContext(r.Context())
	if !parent.IsRecording() {
		return r, nil
	}
	method, route, _ := strings.Cut(pattern, " ")
	ctx, span := parent.TracerProvider().Tracer(tracerName).Start(r.Context(), pattern,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrMethod.String(method), attrRoute.String(route)))
	return r.WithContext(ctx), span
}

// traceTPP names the TPP the gateway verified on the request's span.
func traceTPP(r *http.Request, tpp string) {
	if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
		span.SetAttributes(attrTPP.String(tpp))
	}
}

// traceError marks the request's span with the code of the error e, which
// answers it.
func traceError(r *http.Request, e *bgerror.Error) {
	if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
		span.SetAttributes(attrError.String(e.Code))
	}
}
