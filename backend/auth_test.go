package backend

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppcontext"
)

// TestHandedOffContext: a context the gateway in this process handed off
// is taken for its own token, unsigned; any other token in the header is
// verified, so a forged one is refused even with a context handed off.
func TestHandedOffContext(t *testing.T) {
	h := newHarness(t, "sqlite")
	srv := h.srv.Config.Handler
	rid := uuid.NewString()
	c := &tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI", "PSP_PI"}, RequestID: rid,
		Method: "GET", Path: "/v1/tpp-contacts"}
	for _, tc := range []struct {
		name, header string
		want         int
	}{
		{"its own token", "handed-off-token", http.StatusNotFound}, // no contacts registered: served
		{"another, forged token", "forged-token", http.StatusUnauthorized},
	} {
		req := httptest.NewRequest("GET", "/v1/tpp-contacts", nil)
		req.Header.Set("X-Request-ID", rid)
		req.Header.Set(tppcontext.Header, tc.header)
		req = req.WithContext(tppcontext.WithIssued(req.Context(), "handed-off-token", c))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, rec.Code, rec.Body, tc.want)
		}
	}
}
