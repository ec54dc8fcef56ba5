package integration

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/tppcontext"
)

// recorder is an upstream that remembers the requests it received, by
// X-Request-ID.
type recorder struct {
	mu   sync.Mutex
	seen map[string]recorded
}

type recorded struct {
	header http.Header
	body   []byte
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.seen[r.Header.Get("X-Request-Id")] = recorded{header: r.Header.Clone(), body: b}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if strings.HasPrefix(r.URL.Path, "/v1/fixes") {
		// The newest shape, as the backend writes it.
		w.Write([]byte(fixesBody))
		return
	}
	w.Write([]byte(`{"ok":true}`))
}

// fixesBody is an account list in the newest shape: amounts as strings, a
// 50-character name, an ISO cash account type.
const fixesBody = `{"accounts":[{"resourceId":"enc!!a1","iban":"NO9386011117947","currency":"NOK","name":"Brukskonto for husholdning og faste trekk 2026 ABCD","cashAccountType":"CACC","balances":[{"balanceType":"expected","balanceAmount":{"currency":"NOK","amount":"18000.50"}}]}]}`

func (rc *recorder) get(id string) (recorded, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	r, ok := rc.seen[id]
	return r, ok
}

var contextKey = bytes.Repeat([]byte("k"), 32)

func startEcho(t *testing.T) (*gateway, *recorder) {
	rc := &recorder{seen: map[string]recorded{}}
	up := httptest.NewServer(rc)
	t.Cleanup(up.Close)
	g := startGateway(t, "integration/testdata/echo.Caddyfile",
		"OBGW_UPSTREAM="+strings.TrimPrefix(up.URL, "http://"),
		"OBGW_CONTEXT_KEY="+base64.StdEncoding.EncodeToString(contextKey))
	g.fixture("echo.Caddyfile: test routes (/v1/echo, /v1/fixes, /v1/target, ...) to a recording upstream")
	return g, rc
}

func TestForwardingAndContextToken(t *testing.T) {
	g, rc := startEcho(t)
	c := client(nil)
	verifier, err := tppcontext.NewVerifier(contextKey)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("verified request carries a fresh context token and no spoofed headers", func(t *testing.T) {
		body := []byte(`{"hello": "world"}`)
		req := newRequest(t, g, http.MethodPost, "/v1/echo?x=1", body)
		req.Header.Set("PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
		req.Header.Set("PSU-IP-Address", "192.0.2.1")
		req.Header.Set("X-Obgw-Context", "forged.token.value")
		req.Header.Set("X-Obgw-Tpp", "PSDNO-FSA-000000000")
		if err := signer(t, "tpp").Sign(req, body); err != nil {
			t.Fatal(err)
		}
		got := send(t, c, req)
		if got.status != 200 {
			t.Fatalf("status %d %s", got.status, got.body)
		}
		up, ok := rc.get(req.Header.Get("X-Request-ID"))
		if !ok {
			t.Fatal("request did not reach the upstream")
		}
		if up.header.Get("X-Obgw-Tpp") != "" {
			t.Fatal("spoofed X-Obgw-Tpp reached the backend")
		}
		if vals := up.header.Values("X-Obgw-Context"); len(vals) != 1 || vals[0] == "forged.token.value" {
			t.Fatalf("context header %q", vals)
		}
		ctx, err := verifier.Verify(up.header.Get("X-Obgw-Context"), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if ctx.TPP != pki.TPP("tpp").OrganizationIdentifier || !ctx.HasRole("PSP_AI") || !ctx.HasRole("PSP_PI") ||
			ctx.PSUID != "3f2504e0-4f89-41d3-9a0c-0305e82c3301" || !ctx.PSUPresent || ctx.RequestID != req.Header.Get("X-Request-ID") || len(ctx.Unverified) != 0 {
			t.Fatalf("context %+v", ctx)
		}
		if !bytes.Equal(up.body, body) {
			t.Fatalf("body changed on the way: %q", up.body)
		}
	})

	t.Run("PSU not present without PSU-IP-Address", func(t *testing.T) {
		req := newRequest(t, g, http.MethodGet, "/v1/echo", nil)
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 200 {
			t.Fatalf("status %d %s", got.status, got.body)
		}
		up, _ := rc.get(req.Header.Get("X-Request-ID"))
		ctx, err := verifier.Verify(up.header.Get("X-Obgw-Context"), time.Now())
		if err != nil || ctx.PSUPresent {
			t.Fatalf("%+v %v", ctx, err)
		}
	})

	t.Run("report_only role and signature let the request through, marked", func(t *testing.T) {
		req := newRequest(t, g, http.MethodGet, "/v1/lenient", nil)
		if err := signer(t, "aisp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Signature", strings.Replace(req.Header.Get("Signature"), `signature="`, `signature="AAAA`, 1))
		got := send(t, c, req)
		if got.status != 200 {
			t.Fatalf("status %d %s", got.status, got.body)
		}
		up, _ := rc.get(req.Header.Get("X-Request-ID"))
		ctx, err := verifier.Verify(up.header.Get("X-Obgw-Context"), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(ctx.Unverified, ",") != "signature,role" {
			t.Fatalf("unverified %v", ctx.Unverified)
		}
	})

	t.Run("(request-target) required by policy", func(t *testing.T) {
		req := newRequest(t, g, http.MethodGet, "/v1/target", nil)
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 400 || got.err.code() != "SIGNATURE_INVALID" {
			t.Fatalf("unsigned target: %d %s", got.status, got.body)
		}
		req = newRequest(t, g, http.MethodGet, "/v1/target?a=1&b=2", nil)
		s := signer(t, "tpp")
		s.SignRequestTarget = true
		if err := s.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 200 {
			t.Fatalf("signed target: %d %s", got.status, got.body)
		}
	})

	t.Run("(request-target) is the original request line under a stripped base path", func(t *testing.T) {
		s := signer(t, "tpp")
		s.SignRequestTarget = true
		req := newRequest(t, g, http.MethodGet, "/api-sandbox/v1/target?a=1", nil)
		if err := s.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 200 {
			t.Fatalf("signed with the base path: %d %s", got.status, got.body)
		}
		// Signed over the rewritten target instead: refused.
		req = newRequest(t, g, http.MethodGet, "/v1/target?a=1", nil)
		if err := s.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		req.URL.Path = "/api-sandbox/v1/target"
		if got := send(t, c, req); got.status != 400 || got.err.code() != "SIGNATURE_INVALID" {
			t.Fatalf("signed without the base path: %d %s", got.status, got.body)
		}
	})

	t.Run("body over the cap", func(t *testing.T) {
		body := []byte(`{"a":"` + strings.Repeat("x", 1<<20) + `"}`)
		req := newRequest(t, g, http.MethodPost, "/v1/echo", body)
		if err := signer(t, "tpp").Sign(req, body); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 413 || got.err.code() != "FORMAT_ERROR" {
			t.Fatalf("%d %s", got.status, got.body)
		}
	})

	t.Run("backend unreachable is 503 SERVICE_UNAVAILABLE", func(t *testing.T) {
		req := newRequest(t, g, http.MethodGet, "/v1/down", nil)
		if err := signer(t, "tpp").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := send(t, c, req); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
			t.Fatalf("%d %s", got.status, got.body)
		}
	})
}

func TestQWAC(t *testing.T) {
	g, _ := startEcho(t)
	cases := []struct {
		name   string
		qwac   string // TPP whose QWAC is presented; "" none
		seal   string
		status int
		code   string
	}{
		{"matching QWAC", "tpp", "tpp", 200, ""},
		{"QWAC of another TPP", "aisp", "tpp", 401, "CERTIFICATE_INVALID"},
		{"no QWAC where required", "", "tpp", 400, "CERTIFICATE_MISSING"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := client(nil)
			if tc.qwac != "" {
				c = client(pki.TPP(tc.qwac).Web)
			}
			req := newRequest(t, g, http.MethodGet, "/v1/qwac", nil)
			if err := signer(t, tc.seal).Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			got := send(t, c, req)
			if got.status != tc.status || (tc.code != "" && got.err.code() != tc.code) {
				t.Fatalf("%d %s", got.status, got.body)
			}
		})
	}
}

func TestTLSVersions(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	addr := strings.Replace(g.addr, "localhost", "127.0.0.1", 1)
	for _, v := range []uint16{tls.VersionTLS10, tls.VersionTLS11} {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
			&tls.Config{ServerName: "localhost", RootCAs: tlsRoots, MinVersion: v, MaxVersion: v})
		if err == nil {
			conn.Close()
			t.Fatalf("TLS version %x accepted", v)
		}
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "localhost", RootCAs: tlsRoots, MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("TLS 1.2 refused: %v", err)
	}
	conn.Close()
	for _, path := range []string{"/health", "/healthz", "/readyz"} {
		if got := send(t, client(nil), newRequest(t, g, http.MethodGet, path, nil)); got.status != 200 {
			t.Fatalf("%s: %d %s", path, got.status, got.body)
		}
	}
}

// TestHealthByIPAddress (issue 16, F2): a load balancer probing by IP
// address gets the health answers on the plain-HTTP health listener, with
// any Host; that listener serves nothing else. On the TLS port an IP
// address gets 421 saying which host name to connect with.
func TestHealthByIPAddress(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	for _, c := range []struct {
		path, host string
		status     int
		body       string
	}{
		{"/healthz", "", 200, `"UP"`},
		{"/health", "10.0.0.5:8081", 200, `"UP"`},
		{"/readyz", "10.0.0.5", 200, ""},
		{"/v1/accounts", "", 404, "serves /healthz"},
		{"/v1/sca/x", "", 404, "serves /healthz"},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+g.health+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.body) {
			t.Errorf("health listener %s (Host %q): %d %s, want %d with %s", c.path, c.host, resp.StatusCode, b, c.status, c.body)
		}
	}
	// The TLS site by IP address: no SNI, so the Host it names is refused
	// (Caddy answers this 421 before any route of the site, whose error
	// routes match its host name only: the body stays empty).
	_, port, _ := net.SplitHostPort(g.addr)
	cfg := &tls.Config{RootCAs: tlsRoots, InsecureSkipVerify: true}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}
	resp, err := c.Get("https://127.0.0.1:" + port + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("the TLS port by IP address: %d, want 421", resp.StatusCode)
	}
}
