package integration

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

// registryServer is an HTTP register on loopback answering GET
// /tpps/<organizationIdentifier> from the test PKI's registry, and counting
// the lookups it answers.
type registryServer struct {
	entries map[string]testpki.RegistryEntry
	hits    atomic.Int64
}

func (s *registryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e, ok := s.entries[strings.TrimPrefix(r.URL.Path, "/tpps/")]
	if r.Method != http.MethodGet || !ok {
		http.NotFound(w, r)
		return
	}
	s.hits.Add(1)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(e)
}

// signedCall sends a signed GET of path as the holder of kp.
func signedCall(t *testing.T, g *gateway, path string, kp *testpki.KeyPair) response {
	t.Helper()
	req := newRequest(t, g, http.MethodGet, path, nil)
	s := &tppclient.Signer{Key: kp.Key, Certificate: kp.Certificate.Raw}
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	return send(t, client(nil), req)
}

// TestRegistrySourceUnreachable runs the gateway on an HTTP register
// (TTL 1 s, stale bound 3 s) that goes away and comes back: cached entries
// are served until the stale bound passes, then the route fails closed with
// 503 (on_error registry deny) or lets the request through marked
// error_allowed (on_error registry allow); a TPP never looked up gets 503,
// not 401; the register's return is picked up without a restart.
func TestRegistrySourceUnreachable(t *testing.T) {
	reg := &registryServer{entries: map[string]testpki.RegistryEntry{}}
	for _, e := range pki.Registry().TPPs {
		reg.entries[e.OrganizationIdentifier] = e
	}
	srv := httptest.NewServer(reg)
	defer srv.Close()
	proxy := newTCPProxy(t, strings.TrimPrefix(srv.URL, "http://"))
	g := startGateway(t, "integration/testdata/onerror.Caddyfile",
		"OBGW_QTSP_CAS="+filepath.Join(repoRoot, "testdata", "pki", "qtsp-cas.pem"),
		"OBGW_REGISTRY=http://"+proxy.addr+"/tpps").
		fixture("onerror.Caddyfile: test routes /v1/deny and /v1/allow answer the checks' decisions")
	tpp, aisp := pki.TPP("tpp").Seal, pki.TPP("aisp").Seal
	expect := func(what, path string, kp *testpki.KeyPair, status int, want string) {
		t.Helper()
		got := signedCall(t, g, path, kp)
		if got.status != status {
			t.Fatalf("%s: %d %s", what, got.status, got.body)
		}
		if status == 200 && string(got.body) != want || status != 200 && got.err.code() != want {
			t.Fatalf("%s: %d %s, want %q", what, got.status, got.body, want)
		}
	}

	before := time.Now()
	expect("register up", "/v1/deny", tpp, 200, "certificate=pass registry=pass")
	fetched := time.Now()
	if reg.hits.Load() != 1 {
		t.Fatalf("register asked %d times", reg.hits.Load())
	}

	proxy.cut()
	// Past the TTL, within the stale bound: the register is asked again,
	// fails, and the cached entry answers.
	time.Sleep(time.Until(fetched.Add(1500 * time.Millisecond)))
	expect("stale entry while down", "/v1/deny", tpp, 200, "certificate=pass registry=pass")
	expect("stale entry while down, allow route", "/v1/allow", tpp, 200, "certificate=pass registry=pass")
	if time.Since(before) >= 4*time.Second {
		t.Fatal("too slow: the stale bound passed before the stale entry was checked")
	}
	// A TPP never looked up cannot be answered for: 503, not 401.
	expect("unknown TPP while down", "/v1/deny", aisp, 503, "SERVICE_UNAVAILABLE")
	expect("unknown TPP while down, allow route", "/v1/allow", aisp, 200, "certificate=pass registry=error_allowed")

	// Past TTL + stale bound: fail closed, or allowed and marked.
	time.Sleep(time.Until(fetched.Add(4500 * time.Millisecond)))
	expect("past the stale bound", "/v1/deny", tpp, 503, "SERVICE_UNAVAILABLE")
	expect("past the stale bound, allow route", "/v1/allow", tpp, 200, "certificate=pass registry=error_allowed")
	expect("still down", "/v1/deny", aisp, 503, "SERVICE_UNAVAILABLE")
	if reg.hits.Load() != 1 {
		t.Fatalf("register answered %d lookups while cut off", reg.hits.Load())
	}

	proxy.restore(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := signedCall(t, g, "/v1/deny", tpp)
		if got.status == 200 {
			break
		}
		if got.status != 503 || time.Now().After(deadline) {
			t.Fatalf("not recovered: %d %s", got.status, got.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	expect("back, deny route", "/v1/deny", tpp, 200, "certificate=pass registry=pass")
	expect("back, unknown TPP", "/v1/deny", aisp, 200, "certificate=pass registry=pass")
	expect("back, allow route", "/v1/allow", aisp, 200, "certificate=pass registry=pass")
}
