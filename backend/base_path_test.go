package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestBasePathLinks: under a base path every /v1/ link of an answer (JSON
// href, HTML action and href, Location, cookie path) carries it; text that
// merely mentions /v1/ inside a JSON string is left alone; a base that is
// not a plain path is ignored.
func TestBasePathLinks(t *testing.T) {
	ctx := WithBasePath(context.Background(), "/api-sandbox")
	if basePath(ctx) != "/api-sandbox" {
		t.Fatal("base path not kept")
	}
	for _, bad := range []string{"", "/", "api", "/a/", "/a//b", "/a b", `/a"b`, "/<x>", "/api-sandbox/x/..", "/./v1", "/" + string(make([]byte, 70))} {
		if basePath(WithBasePath(context.Background(), bad)) != "" {
			t.Errorf("base %q accepted", bad)
		}
	}
	rec := httptest.NewRecorder()
	bw := &baseWriter{w: rec, base: "/api-sandbox"}
	bw.Header().Set("Location", "/v1/payments/x")
	bw.Header().Set("Content-Length", "10")
	http.SetCookie(bw, &http.Cookie{Name: "c", Value: "v", Path: "/v1/sca/f"})
	bw.WriteHeader(http.StatusCreated)
	bw.Write([]byte(`{"_links":{"self":{"href":"/v1/payments/x"}},"text":"see \"href\":\"/v1/ in a string"}`))
	bw.Write([]byte(`<form action="/v1/sca/f"><a href="/v1/sca/f">`))
	bw.finish()
	want := `{"_links":{"self":{"href":"/api-sandbox/v1/payments/x"}},"text":"see \"href\":\"/v1/ in a string"}` +
		`<form action="/api-sandbox/v1/sca/f"><a href="/api-sandbox/v1/sca/f">`
	if rec.Code != http.StatusCreated || rec.Body.String() != want {
		t.Errorf("answer %d %s\nwant %s", rec.Code, rec.Body, want)
	}
	if got := rec.Header().Get("Location"); got != "/api-sandbox/v1/payments/x" {
		t.Errorf("Location %s", got)
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
		t.Errorf("Content-Length %s, want %d", got, len(want))
	}
	if got := rec.Header().Get("Set-Cookie"); got != "c=v; Path=/api-sandbox/v1/sca/f" {
		t.Errorf("Set-Cookie %s", got)
	}
}
