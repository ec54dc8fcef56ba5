package integration

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppcontext"
)

// The gateway in front of a bank's own backend that is not Go
// (OBGW_BACKEND=upstream): a Node service with the jose package verifies
// every X-Obgw-Context token with the gateway's JWKS (Ed25519 keys from
// files), refuses expired, wrong-audience, unknown-key and tampered
// tokens, and answers the identity it saw and the TPP's headers it got; a
// key rotation publishes the next key before it signs; the upstream's
// failures reach the TPP as Berlin Group errors.

// nodeUpstreamDir holds the Node service (package.json, its lock file and
// server.mjs); `make test` and .ci/run install its node_modules.
const nodeUpstreamDir = "integration/testdata/upstream-node"

// edKeyFile writes a fresh Ed25519 private key as PKCS #8 PEM and returns
// the file and the key.
func edKeyFile(t *testing.T, dir, name string) (string, *tppcontext.SigningKey) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := tppcontext.NewSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return file, k
}

// startNodeUpstream runs the Node service on port, trusting the JWKS at
// jwksURL for audience, behind the gateway's path prefix.
// nodeReady returns the node binary and the Node test double's directory,
// once its packages are installed (make test installs them).
func nodeReady(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("no node on PATH: install Debian's nodejs (and npm ci in " + nodeUpstreamDir + ")")
	}
	dir = filepath.Join(repoRoot, nodeUpstreamDir)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "jose")); err != nil {
		t.Fatalf("the Node upstream's packages are not installed: run npm ci --prefix %s (make test does)", nodeUpstreamDir)
	}
	return node, dir
}

func startNodeUpstream(t *testing.T, port int, jwksURL, audience, prefix string) *exec.Cmd {
	t.Helper()
	node, dir := nodeReady(t)
	pki := filepath.Join(repoRoot, "testdata", "pki")
	cmd := exec.Command(node, "server.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "JWKS_URL="+jwksURL, "AUDIENCE="+audience, "PATH_PREFIX="+prefix,
		"TLS_CERT="+filepath.Join(pki, "server.pem"), "TLS_KEY="+filepath.Join(pki, "server-key.pem"),
		"CLIENT_CA="+filepath.Join(pki, "gateway-ca.pem"))
	out := &lockedWriter{w: new(strings.Builder)}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return cmd
		}
	}
	t.Fatalf("the Node upstream did not start: %s", out.w)
	return nil
}

// upstreamGateway starts the shipped Caddyfile in front of the upstream,
// signing with key and publishing published.
// jwksMaxAge is the JWKS's max-age in the upstream tests
// (OBGW_CONTEXT_JWKS_MAX_AGE): how long the Node verifier keeps a set.
const jwksMaxAge = 2 * time.Second

func upstreamGateway(t *testing.T, port, health, upstream int, key string, published ...string) *gateway {
	t.Helper()
	g := start(t, "Caddyfile", port, true, fmt.Sprintf("OBGW_LISTEN=localhost:%d", port), fmt.Sprintf("OBGW_HEALTH_PORT=%d", health),
		"OBGW_BACKEND=upstream", fmt.Sprintf("OBGW_UPSTREAM_URL=https://localhost:%d", upstream), "OBGW_UPSTREAM_PATH_PREFIX=/bank",
		"OBGW_CONTEXT_SIGNING_KEY_FILE="+key, "OBGW_CONTEXT_PUBLISHED_KEY_FILES="+strings.Join(published, " "),
		"OBGW_CONTEXT_AUDIENCE=bank-api",
		// Short, so that a retired key's end is quick to test.
		"OBGW_CONTEXT_JWKS_MAX_AGE="+jwksMaxAge.String(),
		// Short, so that the hanging upstream is cheap to test.
		"OBGW_UPSTREAM_RESPONSE_HEADER_TIMEOUT="+upstreamTimeout.String())
	return g.fixture("the upstream is a Node test double that answers the identity it verified, not the interface")
}

// gatewayBefore serves h over mutual TLS as a bank's upstream (the test
// PKI's server certificate; the gateways' client certificates required),
// and starts a gateway in front of it (OBGW_BACKEND=upstream), a fixture
// for why.
func gatewayBefore(t *testing.T, h http.Handler, why string) *gateway {
	t.Helper()
	gatewayCA := x509.NewCertPool()
	gatewayCA.AddCert(pki.GatewayCA.Certificate)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pki.Server.TLSCertificate()},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: gatewayCA})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	key, _ := edKeyFile(t, t.TempDir(), "context")
	return startGateway(t, "Caddyfile", "OBGW_BACKEND=upstream",
		fmt.Sprintf("OBGW_UPSTREAM_URL=https://localhost:%d", ln.Addr().(*net.TCPAddr).Port),
		"OBGW_CONTEXT_SIGNING_KEY_FILE="+key).fixture(why)
}

// upstreamTimeout is the gateway's response_header_timeout in the tests.
const upstreamTimeout = 3 * time.Second

// seen is what the Node upstream says it verified, and the TPP's headers
// it received (nil: absent).
type seen struct {
	KID, Alg, TPP, PSUID, RequestID, Path, Error string
	Roles                                        []string
	Headers                                      map[string]any
}

func decodeSeen(t *testing.T, body []byte) seen {
	t.Helper()
	var s seen
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("upstream answer %s: %v", body, err)
	}
	str := func(k string) string { v, _ := raw[k].(string); return v }
	s.KID, s.Alg, s.TPP, s.PSUID, s.RequestID, s.Path, s.Error = str("kid"), str("alg"), str("tpp"), str("psuId"), str("requestId"), str("path"), str("error")
	if rs, ok := raw["roles"].([]any); ok {
		for _, r := range rs {
			s.Roles = append(s.Roles, fmt.Sprint(r))
		}
	}
	s.Headers, _ = raw["headers"].(map[string]any)
	return s
}

// forwardedHeaders are the TPP's headers a bank needs, which the gateway
// must forward as received (server.mjs reports them).
var forwardedHeaders = []string{"PSU-ID", "TPP-Redirect-URI", "Signature", "TPP-Signature-Certificate", "X-Request-ID"}

// upstreamRequest is a signed account information request of a present
// PSU to path.
func upstreamRequest(t *testing.T, g *gateway, path string) *http.Request {
	t.Helper()
	req := newRequest(t, g, http.MethodGet, path, nil)
	req.Header.Set("PSU-ID", uuid.NewString())
	req.Header.Set("TPP-Session-ID", uuid.NewString())
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	return req
}

func TestNodeUpstreamVerifiesContextTokens(t *testing.T) {
	dir := t.TempDir()
	keyA, a := edKeyFile(t, dir, "a.pem")
	keyB, b := edKeyFile(t, dir, "b.pem")
	_, stranger := edKeyFile(t, dir, "c.pem")
	port, health, upstreamPort := freePort(t), freePort(t), freePort(t)
	jwksURL := fmt.Sprintf("http://127.0.0.1:%d/.well-known/jwks.json", health)
	node := startNodeUpstream(t, upstreamPort, jwksURL, "bank-api", "/bank")
	g := upstreamGateway(t, port, health, upstreamPort, keyA)

	through := func(wantKID string) {
		t.Helper()
		req := upstreamRequest(t, g, "/v1/accounts?withBalance=true")
		got := send(t, client(nil), req)
		s := decodeSeen(t, got.body)
		if got.status != 200 || s.KID != wantKID || s.Alg != "EdDSA" || s.TPP != "PSDNO-FSA-987654321" || s.PSUID != req.Header.Get("PSU-ID") ||
			s.RequestID != req.Header.Get("X-Request-ID") || s.Path != "/bank/v1/accounts?withBalance=true" {
			t.Fatalf("through the gateway: %d %s: want the Node upstream to have verified kid %s, the TPP, the PSU-ID and the request\n%s", got.status, got.body, wantKID, g.logs())
		}
		for _, h := range forwardedHeaders {
			if sent, received := req.Header.Get(h), s.Headers[strings.ToLower(h)]; sent == "" || received != sent {
				t.Errorf("%s: the TPP sent %q, the upstream received %v", h, sent, received)
			}
		}
		// The upstream's answer passes through obgw_sign: signed with the
		// bank's seal for this request.
		verifySigned(t, "the upstream's answer", got, req.Header.Get("X-Request-ID"))
		// (issue 32, 3) without the upstream's identity, not cached.
		if strings.Contains(got.header.Get("Server"), "bank-core") || got.header.Get("X-Powered-By") != "" || got.header.Get("Cache-Control") != "no-store" {
			t.Errorf("the upstream's answer: Server %q, X-Powered-By %q, Cache-Control %q", got.header.Get("Server"), got.header.Get("X-Powered-By"), got.header.Get("Cache-Control"))
		}
	}
	through(a.KeyID())

	// (issue 32, 1) An id sent percent-encoded: the token's path is the
	// decoded one, which the Node verifier, written from the document,
	// compares with its decoded request path.
	escaped := upstreamRequest(t, g, "/v1/accounts/enc%21%21abc")
	if got := send(t, client(nil), escaped); got.status != 200 || decodeSeen(t, got.body).Path != "/bank/v1/accounts/enc%21%21abc" {
		t.Fatalf("an escaped id through the Node upstream: %d %s", got.status, got.body)
	}

	// The JWKS is on the internal listener only.
	resp, err := http.Get(jwksURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), a.KeyID()) || strings.Contains(string(body), `"d"`) {
		t.Fatalf("JWKS: %d %s", resp.StatusCode, body)
	}
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/.well-known/jwks.json", nil)); got.status != 404 {
		t.Fatalf("the JWKS on the TPP listener: %d %s", got.status, got.body)
	}

	// Straight to the upstream (as the gateway, with its client
	// certificate): every token the contract says to refuse is refused.
	gw := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: tlsRoots, Certificates: []tls.Certificate{pki.Gateway.TLSCertificate()}}}}
	direct := func(name string, key *tppcontext.SigningKey, aud string, issued time.Time, edit func(string) string) seen {
		t.Helper()
		iss, err := tppcontext.NewIssuer(key)
		if err != nil {
			t.Fatal(err)
		}
		c := tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, RequestID: uuid.NewString(), Method: "GET", Path: "/v1/accounts"}
		tok, _ := iss.WithAudience(aud).Issue(c, issued)
		if edit != nil {
			tok = edit(tok)
		}
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://localhost:%d/bank/v1/accounts", upstreamPort), nil)
		req.Header.Set(tppcontext.Header, tok)
		req.Header.Set("X-Request-ID", c.RequestID)
		resp, err := gw.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s := decodeSeen(t, b)
		s.Error = fmt.Sprintf("%d %s", resp.StatusCode, s.Error)
		return s
	}
	now := time.Now()
	if s := direct("a good token", a, "bank-api", now, nil); !strings.HasPrefix(s.Error, "200") {
		t.Fatalf("a good token straight to the upstream: %s", s.Error)
	}
	for _, c := range []struct {
		name string
		key  *tppcontext.SigningKey
		aud  string
		at   time.Time
		edit func(string) string
		want string
	}{
		{"expired", a, "bank-api", now.Add(-2 * time.Minute), nil, "ERR_JWT_EXPIRED"},
		{"another audience", a, "someone-else", now, nil, "ERR_JWT_CLAIM_VALIDATION_FAILED"},
		{"a key not published", stranger, "bank-api", now, nil, "ERR_JWKS_NO_MATCHING_KEY"},
		{"tampered", a, "bank-api", now, func(tok string) string {
			p := strings.Split(tok, ".")
			return p[0] + "." + strings.Replace(p[1], p[1][10:14], "AAAA", 1) + "." + p[2]
		}, "401"},
	} {
		if s := direct(c.name, c.key, c.aud, c.at, c.edit); !strings.HasPrefix(s.Error, "401") || !strings.Contains(s.Error, c.want) {
			t.Errorf("%s token straight to the upstream: %s, want 401 %s", c.name, s.Error, c.want)
		}
	}
	if resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tlsRoots}}}).Get(
		fmt.Sprintf("https://localhost:%d/bank/v1/accounts", upstreamPort)); err == nil {
		resp.Body.Close()
		t.Fatalf("the upstream answered a client without the gateway's certificate: %d", resp.StatusCode)
	}

	// The PSU's pages go to the bank's upstream without a token: one a
	// client sends is removed, valid or not. (A token signed with the
	// gateway's key for that very request, sent by the client: the
	// upstream would accept it if it arrived.)
	{
		iss, err := tppcontext.NewIssuer(a)
		if err != nil {
			t.Fatal(err)
		}
		rid := uuid.NewString()
		tok, _ := iss.WithAudience("bank-api").Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"},
			RequestID: rid, Method: "GET", Path: "/v1/sca/x"}, time.Now())
		req, _ := http.NewRequest(http.MethodGet, "https://"+g.addr+"/v1/sca/x", nil)
		req.Header.Set(tppcontext.Header, tok)
		req.Header.Set("X-Request-ID", rid)
		// Not the document's answer (the upstream's own JSON), so not
		// through client.
		resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tlsRoots}}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(string(b), "no context token") {
			t.Fatalf("a client's X-Obgw-Context on the SCA route reached the upstream: %d %s", resp.StatusCode, b)
		}
	}

	// Rotation: B is published first (A still signs), then B signs and A
	// stays published while tokens it signed may be in flight.
	// After each restart, both keys are in the JWKS, public halves only.
	published := func(stage string) {
		t.Helper()
		resp, err := http.Get(jwksURL)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Keys []struct {
				KID string `json:"kid"`
				D   string `json:"d"`
			} `json:"keys"`
		}
		err = json.NewDecoder(resp.Body).Decode(&set)
		resp.Body.Close()
		var kids []string
		for _, k := range set.Keys {
			if k.D == "" {
				kids = append(kids, k.KID)
			}
		}
		if err != nil || len(set.Keys) != 2 || !slices.Contains(kids, a.KeyID()) || !slices.Contains(kids, b.KeyID()) {
			t.Fatalf("%s: the JWKS lists %v public keys of %d (%v), want %s and %s", stage, kids, len(set.Keys), err, a.KeyID(), b.KeyID())
		}
	}
	_ = g.cmd.Process.Kill()
	g = upstreamGateway(t, port, health, upstreamPort, keyA, keyB)
	published("B published before it signs")
	through(a.KeyID())
	_ = g.cmd.Process.Kill()
	g = upstreamGateway(t, port, health, upstreamPort, keyB, keyA)
	published("B signs, A still published")
	through(b.KeyID())
	if s := direct("a token of the retiring key", a, "bank-api", time.Now(), nil); !strings.HasPrefix(s.Error, "200") {
		t.Fatalf("a token of the retiring key: %s", s.Error)
	}
	// (issue 32, 2) A retired: the JWKS lists B alone. The Node verifier,
	// which keeps the set as long as its max-age says, as the document
	// asks, refuses A's tokens within that time; B's go on.
	_ = g.cmd.Process.Kill()
	g = upstreamGateway(t, port, health, upstreamPort, keyB)
	retired := time.Now()
	for {
		s := direct("a token of the retired key", a, "bank-api", time.Now(), nil)
		if strings.HasPrefix(s.Error, "401") && strings.Contains(s.Error, "ERR_JWKS_NO_MATCHING_KEY") {
			break
		}
		if time.Since(retired) > jwksMaxAge+3*time.Second {
			t.Fatalf("a token of the retired key %v after the rotation, whose JWKS max-age is %v: %s", time.Since(retired), jwksMaxAge, s.Error)
		}
		time.Sleep(200 * time.Millisecond)
	}
	through(b.KeyID())

	// The upstream failing: its 502, 503 and 504 pages, its silence past
	// response_header_timeout, and the upstream down each reach the TPP as
	// a signed Berlin Group 503 SERVICE_UNAVAILABLE, never as HTML.
	unavailable := func(what, path string) {
		t.Helper()
		req := upstreamRequest(t, g, path)
		began := time.Now()
		got := send(t, client(nil), req) // fails on a body that is not JSON
		if got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" ||
			!strings.HasPrefix(got.header.Get("Content-Type"), "application/json") || strings.Contains(string(got.body), "<html") {
			t.Errorf("%s: %d %s %s, want a Berlin Group 503 SERVICE_UNAVAILABLE", what, got.status, got.header.Get("Content-Type"), got.body)
		}
		if took := time.Since(began); took > upstreamTimeout+5*time.Second {
			t.Errorf("%s: answered after %v", what, took)
		}
		verifySigned(t, what, got, req.Header.Get("X-Request-ID"))
	}
	for _, status := range []int{500, 502, 503, 504} {
		unavailable(fmt.Sprintf("the upstream's %d page", status), fmt.Sprintf("/v1/accounts/upstream-status-%d", status))
	}
	// (issue 32, 3) Its HTML 404 is a Berlin Group 404 RESOURCE_UNKNOWN.
	req404 := upstreamRequest(t, g, "/v1/accounts/upstream-status-404")
	if got := send(t, client(nil), req404); got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" || strings.Contains(string(got.body), "<html") ||
		strings.Contains(got.header.Get("Server"), "bank-core") || got.header.Get("X-Powered-By") != "" {
		t.Errorf("the upstream's 404 page: %d %v %s", got.status, got.header, got.body)
	}
	unavailable("the upstream hanging", "/v1/accounts/upstream-hang")
	_ = node.Process.Kill()
	_ = node.Wait()
	unavailable("the upstream down", "/v1/accounts")
}

// TestUpstreamNeedsContextSigningKey: OBGW_BACKEND=upstream without an
// asymmetric signing key does not start (the upstream could verify no
// token), and says which setting is missing; with one it validates.
func TestUpstreamNeedsContextSigningKey(t *testing.T) {
	env := append(append(os.Environ(), pkiEnv(true)...), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
		fmt.Sprintf("OBGW_LISTEN=localhost:%d", freePort(t)), fmt.Sprintf("OBGW_HEALTH_PORT=%d", freePort(t)),
		fmt.Sprintf("OBGW_ADMIN=127.0.0.1:%d", freePort(t)), "OBGW_BACKEND=upstream", "OBGW_CONTEXT_PUBLISHED_KEY_FILES=")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot
	cmd.Env = append(env, "OBGW_CONTEXT_SIGNING_KEY_FILE=")
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("upstream mode without a signing key: %v (timed out: %v)\n%s", err, ctx.Err() != nil, out)
	}
	for _, want := range []string{"OBGW_CONTEXT_SIGNING_KEY_FILE", "context_signing_key_file", "obgw_context_signing asymmetric"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the error does not name %s:\n%s", want, out)
		}
	}
	cmd = exec.Command(binary, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot
	// A key of the bank's own: production refuses the test PKI's.
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyFile := filepath.Join(t.TempDir(), "context-signing-key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(env, "OBGW_CONTEXT_SIGNING_KEY_FILE="+keyFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("upstream mode with a signing key: %v\n%s", err, out)
	}
}

// TestContextTokenVectorsInNode (issue 32, 1): a verifier written in Node
// from docs/context-token.md alone (testdata/upstream-node/vectors.mjs,
// with the jose package) reaches every verdict of the language-neutral
// test vectors, docs/context-token-vectors.json, which the Go verifier is
// held to as well (tppcontext TestContextTokenVectors).
func TestContextTokenVectorsInNode(t *testing.T) {
	node, dir := nodeReady(t)
	vectors := filepath.Join(repoRoot, "docs", "context-token-vectors.json")
	raw, err := os.ReadFile(vectors)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct{ Name string } `json:"cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || len(v.Cases) == 0 {
		t.Fatalf("the vectors: %v", err)
	}
	cmd := exec.Command(node, "vectors.mjs", vectors)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	agreed := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "ok ") {
			agreed++
		}
	}
	if err != nil || agreed != len(v.Cases) {
		t.Fatalf("the Node verifier against the vectors: %d of %d agreed (%v)\n%s", agreed, len(v.Cases), err, out)
	}
}
