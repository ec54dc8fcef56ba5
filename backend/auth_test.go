package backend

import (
	"net/http"
	"net/http/httptest"
	"strings"
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
		name, header      string
		method, path, rid string
		want              int
	}{
		{"its own token", "handed-off-token", "GET", "/v1/tpp-contacts", rid, http.StatusNotFound}, // no contacts registered: served
		{"another, forged token", "forged-token", "GET", "/v1/tpp-contacts", rid, http.StatusUnauthorized},
		// A context issued for another request is refused, whatever differs.
		{"another method", "handed-off-token", "DELETE", "/v1/tpp-contacts", rid, http.StatusUnauthorized},
		{"another path", "handed-off-token", "GET", "/v1/accounts", rid, http.StatusUnauthorized},
		{"another request id", "handed-off-token", "GET", "/v1/tpp-contacts", uuid.NewString(), http.StatusUnauthorized},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		req.Header.Set("X-Request-ID", tc.rid)
		req.Header.Set(tppcontext.Header, tc.header)
		req = req.WithContext(tppcontext.WithIssued(req.Context(), "handed-off-token", c))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, rec.Code, rec.Body, tc.want)
		}
		// Refused as not from the gateway, and for nothing else.
		if tc.want == http.StatusUnauthorized && !strings.Contains(rec.Body.String(), `"code":"CERTIFICATE_INVALID"`) {
			t.Errorf("%s: %s, want CERTIFICATE_INVALID", tc.name, rec.Body)
		}
	}
}
