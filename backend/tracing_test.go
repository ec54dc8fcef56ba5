package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// TestHandlerSpans: under a recording span, a request gets a span named
// for its route, with the TPP and the error code of its answer, and the
// store's spans under it; no attribute carries the PSU's identifier.
func TestHandlerSpans(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "obgw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := sandbox.SeedFor(ctx, st, testTPP, time.Now()); err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	iss, _ := tppcontext.NewIssuer(key)
	ver, _ := tppcontext.NewVerifier(key)
	srv := New(Config{Store: st, Tokens: ver, Sandbox: true})

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(ctx, "request")
	psuID := uuid.NewString()
	rid := uuid.NewString()
	req := httptest.NewRequestWithContext(ctx, "GET", "/v1/accounts", nil)
	tok, _ := iss.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, RequestID: rid,
		PSUID: psuID, PSUPresent: true, Method: "GET", Path: "/v1/accounts"}, time.Now())
	req.Header.Set("X-Request-ID", rid)
	req.Header.Set("PSU-ID", psuID)
	req.Header.Set("TPP-Session-ID", "s1")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	req.Header.Set(tppcontext.Header, tok)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	parent.End()
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("%d %s", w.Code, w.Body)
	}

	var handler sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "GET /v1/accounts" {
			handler = s
		}
		for _, a := range s.Attributes() {
			if v := a.Value.String(); strings.Contains(v, psuID) || strings.Contains(v, tok) {
				t.Errorf("%s: attribute %s carries the PSU-ID or the token: %s", s.Name(), a.Key, v)
			}
		}
	}
	if handler == nil || handler.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("no handler span under the request's: %v", rec.Ended())
	}
	attrs := map[string]string{}
	for _, a := range handler.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["http.route"] != "/v1/accounts" || attrs["http.request.method"] != "GET" ||
		attrs["obgw.tpp"] != "PSDNO-FSA-987654321" || attrs["obgw.error"] != "CONSENT_INVALID" {
		t.Errorf("handler span attributes %v", attrs)
	}
	queries := 0
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == handler.SpanContext().SpanID() {
			queries++
		}
	}
	if queries == 0 {
		t.Error("no store span under the handler's")
	}

	// Without a recording span: no span.
	n := len(rec.Ended())
	req = req.WithContext(context.Background())
	srv.ServeHTTP(httptest.NewRecorder(), req)
	if len(rec.Ended()) != n {
		t.Error("spans without a recording span")
	}
}
