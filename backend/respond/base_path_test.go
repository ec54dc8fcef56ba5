package respond

import (
	"context"
	"net/http/httptest"
	"testing"
)

// TestBasePathLinks: a link is built under the request's base path; a
// base that is not a plain path is ignored. That every answer's links
// carry it is checked by every test on the sqlite-base harness
// (underBase).
func TestBasePathLinks(t *testing.T) {
	ctx := WithBasePath(context.Background(), "/api-sandbox")
	if BasePath(ctx) != "/api-sandbox" {
		t.Fatal("base path not kept")
	}
	for _, bad := range []string{"", "/", "api", "/a/", "/a//b", "/a b", `/a"b`, "/<x>", "/api-sandbox/x/..", "/./v1", "/" + string(make([]byte, 70))} {
		if BasePath(WithBasePath(context.Background(), bad)) != "" {
			t.Errorf("base %q accepted", bad)
		}
	}
	r := httptest.NewRequest("GET", "/v1/accounts", nil)
	if got := Under(r, "/v1/payments/x"); got != "/v1/payments/x" {
		t.Errorf("without a base path: %s", got)
	}
	if got := Under(r.WithContext(ctx), "/v1/payments/x"); got != "/api-sandbox/v1/payments/x" {
		t.Errorf("under /api-sandbox: %s", got)
	}
}
