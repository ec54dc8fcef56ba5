package integration

import (
	"crypto/tls"
	"io"
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
	// identity holds, per path served, the X-Obgw-* headers and
	// trailers it received.
	identity map[string][]string
}

func (u *servletUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	segments := strings.Split(r.URL.Path, "/")
	for i, s := range segments {
		segments[i], _, _ = strings.Cut(s, ";")
	}
	p := path.Clean(strings.Join(segments, "/"))
	_, _ = io.Copy(io.Discard, r.Body) // the trailers come after it
	var identity []string
	for _, h := range []http.Header{r.Header, r.Trailer} {
		for name, v := range h {
			if strings.HasPrefix(name, "X-Obgw-") {
				identity = append(identity, name+": "+strings.Join(v, ","))
			}
		}
	}
	u.mu.Lock()
	u.seen = append(u.seen, p)
	if u.identity == nil {
		u.identity = map[string][]string{}
	}
	u.identity[p] = identity
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"served":"` + p + `"}`))
}

func (u *servletUpstream) identityAt(p string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.identity[p]
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
	up := &servletUpstream{}
	g := gatewayBefore(t, up, "the upstream is a servlet-like test double that answers the path it read, not the interface")
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

// TestNoSmuggledIdentity (issue 34, 5): over HTTP/1.1, which carries
// Connection and trailers, a client cannot unset the gateway's token by
// naming it hop-by-hop, nor pass X-Obgw-* headers as request trailers,
// on a verified POST or on the unverified SCA route: the upstream gets
// the gateway's X-Obgw-Context alone, or nothing.
func TestNoSmuggledIdentity(t *testing.T) {
	up := &servletUpstream{}
	g := gatewayBefore(t, up, "the upstream is a servlet-like test double that answers the path it read, not the interface")
	h1 := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: tlsRoots, NextProtos: []string{"http/1.1"}}, DisableCompression: true}}
	do := func(method, p string, sign bool) {
		t.Helper()
		body := strings.NewReader(`{"instructedAmount":{"currency":"NOK","amount":"1.00"}}`)
		req := newRequest(t, g, method, p, nil)
		req.Header.Set("Connection", "close, X-Obgw-Context")
		req.Header.Set("X-Obgw-Psu", "smuggled")
		if method == http.MethodPost {
			// Chunked, with trailers the client announces.
			req.Body = io.NopCloser(body)
			req.ContentLength = -1
			req.Header.Set("Content-Type", "application/json")
			req.Trailer = http.Header{"X-Obgw-Context": {"smuggled"}, "X-Obgw-Psu": {"smuggled"}}
		}
		if sign {
			if err := signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			// The Digest of a body sent in chunks: the signer saw none.
			req.Header.Del("Digest")
		}
		resp, err := h1.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, p, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	do(http.MethodGet, "/v1/accounts", true)
	got := up.identityAt("/v1/accounts")
	if len(got) != 1 || !strings.HasPrefix(got[0], "X-Obgw-Context: ") || strings.Contains(got[0], "smuggled") {
		t.Errorf("a verified GET naming X-Obgw-Context in Connection: the upstream got %q", got)
	}
	do(http.MethodPost, "/v1/sca/anything", false)
	if got := up.identityAt("/v1/sca/anything"); len(got) != 0 {
		t.Errorf("the SCA route with X-Obgw-* trailers: the upstream got %q", got)
	}
	if seen := up.paths(); len(seen) != 2 {
		t.Errorf("the upstream served %v", seen)
	}
}
