package integration

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"
	"time"
)

// servletUpstream is a bank's upstream that reads paths as a servlet
// container does (Tomcat, Jetty): each segment's ";" parameters dropped,
// then dot segments resolved, so "/..;/" climbs and "balances;x" is the
// balances. It records the paths it served, as it read them.
type servletUpstream struct {
	mu   sync.Mutex
	seen []string
}

func (u *servletUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	segments := strings.Split(r.URL.Path, "/")
	for i, s := range segments {
		segments[i], _, _ = strings.Cut(s, ";")
	}
	p := path.Clean(strings.Join(segments, "/"))
	u.mu.Lock()
	u.seen = append(u.seen, p)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"served":"` + p + `"}`))
}

func (u *servletUpstream) paths() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

// TestPathsReadOneWay (issue 34, 3): in front of a bank's upstream that
// normalises paths as a servlet container does, a path that the routes
// would match as one resource and the upstream serve as another is
// refused (400 FORMAT_ERROR naming (request-target)) and never reaches
// the upstream: dot segments around a policy, "..;", a ";" parameter
// that would escape the PSU-not-present count, a backslash, an empty
// segment; on verified routes and on the unverified SCA route alike. The
// AIS-only TPP signs them all; the paths of the interface still pass.
func TestPathsReadOneWay(t *testing.T) {
	gatewayCA := x509.NewCertPool()
	gatewayCA.AddCert(pki.GatewayCA.Certificate)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pki.Server.TLSCertificate()},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: gatewayCA})
	if err != nil {
		t.Fatal(err)
	}
	up := &servletUpstream{}
	srv := &http.Server{Handler: up, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	key, _ := edKeyFile(t, t.TempDir(), "context")
	g := startGateway(t, "Caddyfile", "OBGW_BACKEND=upstream",
		fmt.Sprintf("OBGW_UPSTREAM_URL=https://localhost:%d", ln.Addr().(*net.TCPAddr).Port),
		"OBGW_CONTEXT_SIGNING_KEY_FILE="+key).
		fixture("the upstream is a servlet-like test double that answers the path it read, not the interface")
	c := client(nil)
	call := func(method, p string) response {
		t.Helper()
		req := newRequest(t, g, method, p, nil)
		req.Header.Set("PSU-ID", "3f2a7c1e-9d4b-4e8a-b6f1-2c5d8e9a0b1c")
		req.Header.Set("TPP-Session-ID", "7b1e4f2a-3c5d-4e6f-8a9b-0c1d2e3f4a5b")
		if err := signer(t, "aisp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		return send(t, c, req)
	}
	for _, tt := range []struct{ method, path, says string }{
		{http.MethodPost, "/v1/payments/../sandbox/initialize", "dot segment"},
		{http.MethodPost, "/v1/payments/%2e%2e/sandbox/initialize", "dot segment"},
		{http.MethodPost, "/v1/sandbox/..;/payments/sepa-credit-transfers", "';'"},
		{http.MethodGet, "/v1/accounts/X/balances;x", "';'"},
		{http.MethodGet, "/v1/sca/..;/accounts", "';'"},
		{http.MethodGet, "/v1/sca/../accounts", "dot segment"},
		{http.MethodGet, "/v1/accounts%5C..%5Cpayments", "backslash"},
		{http.MethodGet, "/v1//accounts", "empty segment"},
		{http.MethodGet, "/api-sandbox/v1/accounts/X/balances;x", "';'"},
	} {
		got := call(tt.method, tt.path)
		if got.status != 400 || got.err.code() != "FORMAT_ERROR" || got.err.TPPMessages[0].Path != "(request-target)" ||
			!strings.Contains(got.err.TPPMessages[0].Text, tt.says) {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, got.status, got.body)
		}
	}
	if seen := up.paths(); len(seen) > 0 {
		t.Fatalf("the upstream was reached: %v", seen)
	}
	// The interface's paths pass, as sent.
	if got := call(http.MethodGet, "/v1/accounts/X/balances"); got.status != 200 || !strings.Contains(string(got.body), `"served":"/v1/accounts/X/balances"`) {
		t.Fatalf("a plain path: %d %s", got.status, got.body)
	}
}
