package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// flowCount counts the SCA flows created.
type flowCount struct {
	store.Store
	n atomic.Int64
}

func (s *flowCount) CreateSCAFlow(ctx context.Context, f *store.SCAFlow) error {
	s.n.Add(1)
	return s.Store.CreateSCAFlow(ctx, f)
}

// TestSCAFlowHeadersBounded: an unconsented request whose TPP-Session-ID
// or TPP-Redirect-URI is over its bound (10 KB, 2 KB) gets 400
// FORMAT_ERROR naming the header, and no flow keeps it, on both stores,
// even when the gateway's hygiene only reports.
func TestSCAFlowHeadersBounded(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		counted := &flowCount{Store: h.st}
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		srv := newTestServer(t, New(Config{Store: counted, Tokens: ver, Sandbox: true, Now: h.clk.now}))
		defer srv.Close()
		send := func(sid, redirect string) (int, map[string]any) {
			req, _ := http.NewRequest("POST", srv.URL+"/v1/bank-offered-consents", nil)
			rid := uuid.NewString()
			req.Header.Set("X-Request-ID", rid)
			req.Header.Set("TPP-Session-ID", sid)
			req.Header.Set("TPP-Redirect-URI", redirect)
			setTPPHeaders(req, "", h.clk.now())
			tok, err := h.issuer.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, RequestID: rid,
				Method: req.Method, Path: req.URL.Path}, h.clk.now())
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(tppcontext.Header, tok)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var b map[string]any
			_ = json.Unmarshal(raw, &b)
			return resp.StatusCode, b
		}
		const cb = "https://tpp.example.no/cb?state="
		for _, tc := range []struct{ name, sid, redirect, header string }{
			{"10 KB TPP-Session-ID", strings.Repeat("s", 10<<10), cb + "x", "TPP-Session-ID"},
			{"2 KB TPP-Redirect-URI", "s1", cb + strings.Repeat("x", 2048-len(cb)), "TPP-Redirect-URI"},
		} {
			status, b := send(tc.sid, tc.redirect)
			msgs, _ := b["tppMessages"].([]any)
			var path string
			if len(msgs) == 1 {
				path, _ = msgs[0].(map[string]any)["path"].(string)
			}
			if status != 400 || errCode(b) != "FORMAT_ERROR" || path != tc.header {
				t.Errorf("%s: %d %v, want 400 FORMAT_ERROR on %s", tc.name, status, b, tc.header)
			}
		}
		if n := counted.n.Load(); n != 0 {
			t.Errorf("%d SCA flows created for over-long headers, want none", n)
		}
		// At the bounds, the flow is made.
		if status, b := send(strings.Repeat("s", 128), cb+strings.Repeat("x", 1024-len(cb))); status != 201 || counted.n.Load() != 1 {
			t.Errorf("headers at their bounds: %d %v, %d flows", status, b, counted.n.Load())
		}
	})
}
