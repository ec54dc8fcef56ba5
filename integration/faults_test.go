package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/store/storetest"
)

// TestReloadUnderLoadDropsNothing: while signed requests flow, the
// configuration is reloaded twice through the admin API; every request
// still gets its answer (no connection error, no 5xx).
func TestReloadUnderLoadDropsNothing(t *testing.T) {
	dataDir := t.TempDir()
	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+dataDir)
	const workers, each = 4, 60
	reqs := make([][]*http.Request, workers)
	for w := range reqs {
		for i := 0; i < each; i++ {
			req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
			if err := signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			reqs[w] = append(reqs[w], req)
		}
	}
	var failures atomic.Int32
	var answered atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(list []*http.Request) {
			defer wg.Done()
			c := client(nil)
			for _, req := range list {
				resp, err := c.Do(req)
				if err != nil {
					failures.Add(1)
					t.Logf("request failed: %v", err)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					failures.Add(1)
					t.Logf("answered %d", resp.StatusCode)
				}
				answered.Add(1)
				time.Sleep(5 * time.Millisecond)
			}
		}(reqs[w])
	}
	for i := 0; i < 2; i++ {
		time.Sleep(300 * time.Millisecond)
		cmd := exec.Command(binary, "reload", "--config", "Caddyfile", "--adapter", "caddyfile", "--address", g.admin, "--force")
		cmd.Dir = repoRoot
		cmd.Env = append(g.cmd.Env, "OBGW_DATA_DIR="+dataDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("reload: %v\n%s", err, out)
		}
	}
	wg.Wait()
	if failures.Load() != 0 || answered.Load() != workers*each {
		t.Fatalf("%d failures, %d of %d answered", failures.Load(), answered.Load(), workers*each)
	}
}

// TestKillBackendDuringPaymentCreation: 200 concurrent payment creations
// go through a gateway to a separate backend process, which is killed with
// SIGKILL in the middle and started again; clients retry what failed with
// the same X-Request-ID, signed anew. Afterwards every payment exists
// exactly once (one per request id, by the store's unique key), each
// acknowledged payment id is the one stored, and nothing is half-written.
func TestKillBackendDuringPaymentCreation(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) { killBackendDuringPayments(t, kind) })
	}
}

func killBackendDuringPayments(t *testing.T, kind string) {
	port := freePort(t)
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	dataDir := t.TempDir()
	env := []string{"OBGW_DATA_DIR=" + dataDir, "OBGW_CONTEXT_KEY=" + key}
	dbURL := filepath.Join(dataDir, "obgw.db")
	if kind == "postgres" {
		dbURL, _ = storetest.Schema(t, "t_kill")
		env = append(env, "OBGW_DATABASE_URL="+dbURL)
	}
	backend := startBackend(t, "testdata/split/backend.Caddyfile", port, env...)
	g := startGateway(t, "Caddyfile", "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL="+backendURL(port), "OBGW_CONTEXT_KEY="+key)

	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"1.00"},"debtorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031010010") +
		`"},"creditorAccount":{"iban":"` + bankaccount.IBAN("NO", "12031020016") + `"},"creditorName":"Ola Nordmann"}`)
	const n = 200
	ids := make([]string, n)
	acked := make([]string, n)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	send1 := func(c *http.Client, i int) (string, bool) {
		req := newRequest(t, g, http.MethodPost, "/v1/payments/domestic-norway-credit-transfers", body)
		req.Header.Set("X-Request-ID", ids[i])
		req.Header.Set("TPP-Session-ID", "kill")
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
		if err := signer(t, "tpp").Sign(req, body); err != nil {
			t.Error(err)
			return "", false
		}
		resp, err := c.Do(req)
		if err != nil {
			return "", false
		}
		defer resp.Body.Close()
		var out struct {
			PaymentID string `json:"paymentId"`
		}
		if resp.StatusCode != 201 || json.NewDecoder(resp.Body).Decode(&out) != nil {
			return "", false
		}
		return out.PaymentID, true
	}
	var wg sync.WaitGroup
	var done atomic.Int32
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := client(nil)
			for i := w; i < n; i += 8 {
				deadline := time.Now().Add(60 * time.Second)
				for time.Now().Before(deadline) {
					if id, ok := send1(c, i); ok {
						acked[i] = id
						done.Add(1)
						break
					}
					time.Sleep(50 * time.Millisecond) // retry with the same X-Request-ID
				}
			}
		}(w)
	}
	// Kill the backend once some payments are through, then start it again.
	for done.Load() < 40 {
		time.Sleep(10 * time.Millisecond)
	}
	_ = backend.cmd.Process.Signal(syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	startBackend(t, "testdata/split/backend.Caddyfile", port, env...)
	wg.Wait()

	st, err := store.Open(context.Background(), dbURL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seen := map[string]bool{}
	for i, rid := range ids {
		if acked[i] == "" {
			t.Fatalf("request %d never acknowledged", i)
		}
		p, err := st.GetPaymentByRequest(context.Background(), "PSDNO-FSA-987654321", rid)
		if err != nil {
			t.Fatalf("acknowledged payment %d missing: %v", i, err)
		}
		if p.ID != acked[i] || seen[p.ID] || p.Amount != 100 || len(p.Body) == 0 {
			t.Fatalf("payment %d: stored %+v, acknowledged %s", i, p, acked[i])
		}
		seen[p.ID] = true
	}
}
