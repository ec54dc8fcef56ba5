package backend

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/obgw/obgw/tppcontext"
)

// lockedBuffer is a log destination safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStoreFailureLogged: a store failure answers 503, never 500, and its
// cause reaches the log (it is not in the TPP's answer).
func TestStoreFailureLogged(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		var logs lockedBuffer
		ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
		srv := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Sandbox: true, Now: h.clk.now,
			Logger: slog.New(slog.NewJSONHandler(&logs, nil))}))
		defer srv.Close()
		h.srv = srv
		// The TPP's sandbox known to this server first (that look-up
		// would fail first on a closed store).
		if status, body, _ := h.call(tppCall{method: "GET", path: "/v1/sandbox/customers"}); status != 200 {
			t.Fatalf("customers: %d %v", status, body)
		}
		h.st.Close()
		status, body, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "s1"})
		if status != 503 {
			t.Fatalf("%d %v", status, body)
		}
		out := logs.String()
		if !strings.Contains(out, `"msg":"store failure"`) || !strings.Contains(out, `"resource":"the SCA flow"`) || !strings.Contains(out, `"error":"`) {
			t.Fatalf("the log lacks the store failure and its cause: %s", out)
		}
	})
}
