package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestUpstreamAnswer: an API answer of the upstream loses its identity
// headers and gets no-store; its error page that is not JSON becomes the
// Berlin Group error of its status (a 500 a 503); its JSON error passes as
// sent; a PSU's page (not authenticated by obgw_verify) only loses the
// identity headers.
func TestUpstreamAnswer(t *testing.T) {
	upstream := func(status int, contentType, body string) caddyhttp.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Server", "bank-core/7.1")
			w.Header().Set("X-Powered-By", "Express")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
			return nil
		}
	}
	serve := func(api bool, h caddyhttp.HandlerFunc) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/v1/accounts", nil)
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{authenticatedVar: api}))
		w := httptest.NewRecorder()
		w.Header().Set("X-Request-Id", testRequestID)
		if err := (UpstreamAnswer{}).ServeHTTP(w, r, h); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, tc := range []struct {
		name        string
		api         bool
		status      int
		contentType string
		body        string
		wantStatus  int
		wantBody    string
		noStore     bool
	}{
		{"a JSON answer", true, 200, "application/json", `{"accounts":[]}`, 200, `{"accounts":[]}`, true},
		{"an HTML 500", true, 500, "text/html", "<html>boom</html>", 503, "SERVICE_UNAVAILABLE", false},
		{"an HTML 404", true, 404, "text/html; charset=utf-8", "<html>nope</html>", 404, "RESOURCE_UNKNOWN", false},
		{"a JSON error of the bank", true, 409, "application/json", `{"tppMessages":[{"category":"ERROR","code":"STATUS_INVALID"}]}`, 409, "STATUS_INVALID", true},
		{"a PSU's page", false, 404, "text/html", "<html>the bank's page</html>", 404, "<html>the bank's page</html>", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.api, upstream(tc.status, tc.contentType, tc.body))
			if w.Code != tc.wantStatus || !strings.Contains(w.Body.String(), tc.wantBody) {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if w.Header().Get("Server") != "" || w.Header().Get("X-Powered-By") != "" || w.Header().Get("X-Request-Id") != testRequestID {
				t.Errorf("headers %v", w.Header())
			}
			if tc.noStore && w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", w.Header().Get("Cache-Control"))
			}
			if tc.api && tc.wantStatus >= 400 && strings.Contains(w.Body.String(), "<html") {
				t.Errorf("an HTML page reached the TPP: %s", w.Body)
			}
		})
	}
	// What the status means stays: Allow of a 405, Retry-After of a 429
	// (ACCESS_EXCEEDED) or 503.
	for _, tc := range []struct {
		status     int
		header     string
		wantStatus int
		wantCode   string
	}{{405, "Allow", 405, "SERVICE_INVALID"}, {429, "Retry-After", 429, "ACCESS_EXCEEDED"}, {503, "Retry-After", 503, "SERVICE_UNAVAILABLE"}} {
		w := serve(true, func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set(tc.header, "7")
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte("<html></html>"))
			return nil
		})
		if w.Code != tc.wantStatus || !strings.Contains(w.Body.String(), tc.wantCode) || w.Header().Get(tc.header) != "7" {
			t.Errorf("an HTML %d with %s: %d %v %s", tc.status, tc.header, w.Code, w.Header(), w.Body)
		}
	}
}
