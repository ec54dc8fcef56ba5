package integration

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/opensslrsa"
	"github.com/obgw/obgw/testpki"
)

// trustSettings are the shipped Caddyfile's trust settings, each with the
// test PKI's files that go there.
var trustSettings = []struct {
	name  string
	files map[string]string // variable: file of testdata/pki
}{
	{"OBGW_TLS_CERT", map[string]string{"OBGW_TLS_CERT": testpki.FileServer, "OBGW_TLS_KEY": testpki.FileServerKey}},
	{"OBGW_QTSP_CAS", map[string]string{"OBGW_QTSP_CAS": testpki.FileQTSPCAs}},
	{"OBGW_CRL", map[string]string{"OBGW_CRL": testpki.FileQTSPCRL}},
	{"OBGW_REGISTRY", map[string]string{"OBGW_REGISTRY": testpki.FileRegistry}},
	{"OBGW_BANK_SEAL_CERT", map[string]string{"OBGW_BANK_SEAL_CERT": testpki.FileBankSeal, "OBGW_BANK_SEAL_KEY": testpki.FileBankSealKey}},
	{"OBGW_CONTEXT_SIGNING_KEY_FILE", map[string]string{"OBGW_CONTEXT_SIGNING_KEY_FILE": "context-signing-key.pem"}},
}

// copyTestPKI copies files of testdata/pki into a directory of its own,
// as a bank would copy them under /etc/obgw, and returns the variables
// that point at the copies.
func copyTestPKI(t *testing.T, files map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	var env []string
	for v, f := range files {
		raw, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "pki", f))
		if err != nil {
			t.Fatal(err)
		}
		// Another name too: where a file lies and what it is called say
		// nothing of what it holds.
		to := filepath.Join(dir, "bank-"+strings.ToLower(v)+".pem")
		if err := os.WriteFile(to, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+to)
	}
	return env
}

// productionCommand is the binary run with the shipped Caddyfile as a
// production deployment on the unpublished PKI, its identity provider
// set, and env last.
func productionCommand(t *testing.T, command string, env ...string) *exec.Cmd {
	cmd := exec.Command(binary, command, "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot
	cmd.Env = append(append(append(os.Environ(), pkiEnv(true)...), productionIdPEnv()...),
		"HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "OBGW_ADMIN=off",
		fmt.Sprintf("OBGW_HEALTH_PORT=%d", freePort(t)), fmt.Sprintf("OBGW_LISTEN=localhost:%d", freePort(t)))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// TestProductionRefusesEachTestFile (issue 27): a production deployment
// whose trust material is its own except for one setting, given a copy of
// the test PKI's file under another name and directory, does not start,
// and its one error names that setting and no other.
func TestProductionRefusesEachTestFile(t *testing.T) {
	if out, err := productionCommand(t, "validate").CombinedOutput(); err != nil {
		t.Fatalf("production on its own PKI: %v\n%s", err, out)
	}
	for _, s := range trustSettings {
		t.Run(s.name, func(t *testing.T) {
			out, err := productionCommand(t, "validate", copyTestPKI(t, s.files)...).CombinedOutput()
			if err == nil {
				t.Fatalf("production with a copy of the test PKI's %v started:\n%s", s.files, out)
			}
			if !strings.Contains(string(out), "production refuses these trust settings") || !strings.Contains(string(out), s.name) {
				t.Fatalf("the error does not name %s:\n%s", s.name, out)
			}
			for _, other := range trustSettings {
				if other.name != s.name && strings.Contains(string(out), "("+other.name) {
					t.Errorf("the error names %s too:\n%s", other.name, out)
				}
			}
		})
	}
}

// TestProductionRefusesTestPKICopied (issue 27): every trust file of the
// test PKI copied to another directory: `obgw run` exits, and its one
// error names every setting, what to give instead, and the sandbox.
func TestProductionRefusesTestPKICopied(t *testing.T) {
	files := map[string]string{}
	for _, s := range trustSettings {
		for v, f := range s.files {
			files[v] = f
		}
	}
	out, err := productionCommand(t, "run", copyTestPKI(t, files)...).CombinedOutput()
	if err == nil {
		t.Fatalf("production with the test PKI copied ran:\n%s", out)
	}
	var refusal string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "production refuses these trust settings") {
			if refusal != "" {
				t.Fatalf("more than one error:\n%s", out)
			}
			refusal = line
		}
	}
	for _, s := range trustSettings {
		if !strings.Contains(refusal, s.name) {
			t.Errorf("the error does not name %s", s.name)
		}
	}
	for _, want := range []string{"give your bank's QSealC", "give your bank's TLS certificate", "give the PEM bundle of the qualified CAs", "OBGW_ENV=sandbox"} {
		if !strings.Contains(refusal, want) {
			t.Errorf("the error does not say %q", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", out)
	}
}

// TestProductionRefusesGeneratedTestPKI (issue 27): a test PKI that
// `obgw testpki` makes afresh, with keys nobody has seen, is recognised by
// the mark on its certificates.
func TestProductionRefusesGeneratedTestPKI(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command(binary, "testpki", "--out", dir).CombinedOutput(); err != nil {
		t.Fatalf("obgw testpki: %v\n%s", err, out)
	}
	out, err := productionCommand(t, "validate", "OBGW_QTSP_CAS="+filepath.Join(dir, testpki.FileQTSPCAs), "OBGW_CRL=",
		"OBGW_BANK_SEAL_CERT="+filepath.Join(dir, testpki.FileBankSeal), "OBGW_BANK_SEAL_KEY="+filepath.Join(dir, testpki.FileBankSealKey)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "OBGW_QTSP_CAS") || !strings.Contains(string(out), "OBGW_BANK_SEAL_CERT") {
		t.Fatalf("production with a generated test PKI: %v\n%s", err, out)
	}
}

// TestSandboxSaysTestPKI (issue 27): a sandbox may trust the test PKI and
// says so, once, in its log, naming the settings; a reload does not say
// it again.
func TestSandboxSaysTestPKI(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	const said = "this sandbox trusts the project's published test PKI"
	g.waitForLog(t, said)
	reload(t, g)
	if n := strings.Count(g.logs(), said); n != 1 {
		t.Fatalf("said %d times:\n%s", n, g.logs())
	}
	for _, s := range []string{"OBGW_QTSP_CAS", "OBGW_TLS_CERT", "OBGW_BANK_SEAL_CERT"} {
		if !strings.Contains(g.logs(), s) {
			t.Errorf("the sandbox's word does not name %s", s)
		}
	}
	p := startGateway(t, "Caddyfile", productionIdPEnv()...)
	if strings.Contains(p.logs(), said) {
		t.Fatalf("production on its own PKI says it trusts the test PKI:\n%s", p.logs())
	}
}

// TestProductionReportsTrust (issue 27): a production start logs one line
// per trust source, saying where it comes from and what it holds; its
// /readyz fails while a trust source cannot serve (here a CRL past its
// nextUpdate, whose CA's certificates are refused) and names it.
func TestProductionReportsTrust(t *testing.T) {
	g := startGateway(t, "Caddyfile", productionIdPEnv()...)
	// The RSA seal in a file signs through OpenSSL when the binary has it
	// (built as this test is: with cgo and libssl-dev).
	signer := `"signer":"go"`
	if opensslrsa.Available {
		signer = `"signer":"openssl"`
	}
	caFile := filepath.Join(productionPKIDir, testpki.FileQTSPCAs)
	for _, want := range [][]string{
		{`"msg":"trust: QTSP CAs"`, `"source":"` + caFile + `"`, `"cas":2`},
		{`"msg":"trust: revocation"`, `(1 CRLs)`, `"ocsp":false`},
		{`"msg":"trust: register"`, `"entries":10`},
		{`"msg":"trust: bank seal"`, `CN=Test Bank AS`, `"key":"file `, `"algorithm":"rsa-sha256"`, signer, `"not_after":"`},
		{`"msg":"trust: TLS certificate"`, `"names":"localhost"`},
	} {
		g.waitForLog(t, want[0])
		line := logLine(g.logs(), want[0])
		for _, w := range want[1:] {
			if !strings.Contains(line, w) {
				t.Errorf("%s lacks %s: %s", want[0], w, line)
			}
		}
	}
	if got := readyz(t, g); got.status != 200 {
		t.Fatalf("/readyz: %d %s", got.status, got.body)
	}

	past := time.Now().Add(-2 * time.Hour)
	stale, err := productionPKI.Issuing.RevocationList(2, nil, past, past.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	crl := filepath.Join(t.TempDir(), "stale-crl.pem")
	if err := os.WriteFile(crl, pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: stale.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	g = startGateway(t, "Caddyfile", append(productionIdPEnv(), "OBGW_CRL="+crl)...)
	if got := readyz(t, g); got.status != 503 || !strings.Contains(string(got.body), `"crl"`) {
		t.Fatalf("/readyz with a CRL past its nextUpdate: %d %s", got.status, got.body)
	}
}

// logLine is the first line of logs holding s.
func logLine(logs, s string) string {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// readyz asks the gateway's internal health listener for /readyz, as a
// load balancer does.
func readyz(t *testing.T, g *gateway) response {
	t.Helper()
	return internalGet(t, "http://"+g.health+"/readyz")
}

// internalGet GETs url from a listener that is not a TPP's (the health
// listener, the admin endpoint) and reads the answer.
func internalGet(t *testing.T, url string) response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// TestProductionRefusesTestIdPCredentials (issue 27): the test identity
// provider's client secret, which this repository publishes, and a key of
// the test PKI as obgw's key at the provider are refused in production.
func TestProductionRefusesTestIdPCredentials(t *testing.T) {
	for name, env := range map[string][]string{
		"OBGW_SCA_OIDC_CLIENT_SECRET":    {"OBGW_SCA_OIDC_CLIENT_SECRET=obgw-test-secret"},
		"OBGW_SCA_OIDC_PRIVATE_KEY_FILE": append([]string{"OBGW_SCA_OIDC_CLIENT_SECRET="}, copyTestPKI(t, map[string]string{"OBGW_SCA_OIDC_PRIVATE_KEY_FILE": "context-signing-key.pem"})...),
	} {
		out, err := productionCommand(t, "validate", env...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "uses no published test credential") || !strings.Contains(string(out), name) {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
}

// startOrRefuse runs cmd until it serves ("serving initial configuration")
// or exits, and returns its output and whether it exited (refused).
func startOrRefuse(t *testing.T, cmd *exec.Cmd) (string, bool) {
	t.Helper()
	var sb strings.Builder
	out := &lockedWriter{w: &sb}
	cmd.Stdout, cmd.Stderr = out, out
	output := func() string {
		out.mu.Lock()
		defer out.mu.Unlock()
		return sb.String()
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case <-exited:
			return output(), true
		case <-deadline:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("neither served nor exited within 60 s:\n%s", output())
		case <-time.After(50 * time.Millisecond):
			if strings.Contains(output(), "serving initial configuration") {
				_ = cmd.Process.Kill()
				<-exited
				return output(), false
			}
		}
	}
}

// TestProductionRefusesTestLinks (issue 34, 6): the TLS links of a
// production deployment (the gateway's to a split backend or a bank's
// upstream, and a split backend's own) refuse the test PKI, copied under
// other names: a trust pool holding its CA, a client certificate of it,
// the backend's server certificate and its gateways' CA. The start exits
// with one error naming the link's settings and no others; with the
// bank's own PKI each starts.
func TestProductionRefusesTestLinks(t *testing.T) {
	signingKey := filepath.Join(t.TempDir(), "context-signing-key.pem")
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(signingKey, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	proxy := []string{"OBGW_BACKEND=proxy", "OBGW_CONTEXT_KEY=" + base64.StdEncoding.EncodeToString(make([]byte, 32))}
	upstream := []string{"OBGW_BACKEND=upstream", "OBGW_CONTEXT_SIGNING_KEY_FILE=" + signingKey}
	backend := func(t *testing.T, env ...string) *exec.Cmd {
		cmd := productionCommand(t, "run", append([]string{"OBGW_CONTEXT_KEY=" + base64.StdEncoding.EncodeToString(make([]byte, 32)),
			fmt.Sprintf("OBGW_BACKEND_LISTEN=localhost:%d", freePort(t)), fmt.Sprintf("OBGW_ADMIN=localhost:%d", freePort(t))}, env...)...)
		cmd.Args[3] = "testdata/split/backend.Caddyfile"
		return cmd
	}
	gateway := func(t *testing.T, env ...string) *exec.Cmd { return productionCommand(t, "run", env...) }
	for _, tc := range []struct {
		name    string
		command func(*testing.T, ...string) *exec.Cmd
		mode    []string
		files   map[string]string
		want    []string
	}{
		{"split backend's CA", gateway, proxy, map[string]string{"OBGW_BACKEND_CA": testpki.FileTLSCA},
			[]string{"tls_trust_pool (OBGW_BACKEND_CA", "trusts the test PKI's CA", "Test Bank TLS CA"}},
		{"gateway's client certificate for the split backend", gateway, proxy,
			map[string]string{"OBGW_BACKEND_CLIENT_CERT": testpki.FileGateway, "OBGW_BACKEND_CLIENT_KEY": testpki.FileGatewayKey},
			[]string{"tls_client_auth (OBGW_BACKEND_CLIENT_CERT", "presents the test PKI's gateway certificate"}},
		{"upstream's CA", gateway, upstream, map[string]string{"OBGW_UPSTREAM_CA": testpki.FileTLSCA},
			[]string{"tls_trust_pool (OBGW_BACKEND_CA, OBGW_UPSTREAM_CA)", "the reverse_proxy to localhost:9446"}},
		{"gateway's client certificate for the upstream", gateway, upstream,
			map[string]string{"OBGW_UPSTREAM_CLIENT_CERT": testpki.FileGateway, "OBGW_UPSTREAM_CLIENT_KEY": testpki.FileGatewayKey},
			[]string{"tls_client_auth"}},
		{"split backend's gateway CA", backend, nil, map[string]string{"OBGW_BACKEND_CLIENT_CA": testpki.FileGatewayCA},
			[]string{"client_auth trust_pool (OBGW_BACKEND_CLIENT_CA)", "Test Bank Gateway CA"}},
		{"split backend's certificate", backend, nil,
			map[string]string{"OBGW_BACKEND_TLS_CERT": testpki.FileServer, "OBGW_BACKEND_TLS_KEY": testpki.FileServerKey},
			[]string{"the backend's tls certificate and key (OBGW_BACKEND_TLS_CERT", "the test PKI's server certificate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, refused := startOrRefuse(t, tc.command(t, append(slices.Clone(tc.mode), copyTestPKI(t, tc.files)...)...))
			if !refused || !strings.Contains(out, "production refuses these TLS links") {
				t.Fatalf("production with the test PKI's %v started:\n%s", tc.files, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the error does not say %q:\n%s", want, out)
				}
			}
			if n := strings.Count(out, "\\n  - "); n != 1 {
				t.Errorf("the error names %d settings, not one:\n%s", n, out)
			}
			// The bank's own PKI for the same link: it starts.
			if out, refused := startOrRefuse(t, tc.command(t, tc.mode...)); refused {
				t.Fatalf("production on its own PKI exited:\n%s", out)
			}
		})
	}
}

// TestUpstreamProductionNeedsNoSCAProvider (issue 32, 5): production with
// OBGW_BACKEND=upstream, where the bank serves the PSU's pages, starts
// without OBGW_SCA_OIDC_ISSUER, as the README says; with obgw's own
// backend it does not (TestProductionNeedsSCAProvider).
func TestUpstreamProductionNeedsNoSCAProvider(t *testing.T) {
	key := filepath.Join(t.TempDir(), "context-signing-key.pem")
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := productionCommand(t, "run", "OBGW_BACKEND=upstream", "OBGW_CONTEXT_SIGNING_KEY_FILE="+key, "OBGW_SCA_OIDC_ISSUER=", "OBGW_SCA_OIDC_CLIENT_ID=", "OBGW_SCA_OIDC_CLIENT_SECRET=")
	if out, refused := startOrRefuse(t, cmd); refused {
		t.Fatalf("production upstream without an identity provider exited:\n%s", out)
	}
}
