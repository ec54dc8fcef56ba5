package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/openapi/openapitest"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

// repoRoot is the module root: the gateway runs there so that the shipped
// Caddyfile's relative paths resolve as they do for `make run`.
var (
	repoRoot string
	binary   string
	// pki is the published test PKI (testdata/pki), which sandboxes trust
	// and production deployments refuse; productionPKI is a PKI like it,
	// generated afresh and never published, for the production
	// deployments of the tests (written to productionPKIDir).
	pki              *testpki.PKI
	productionPKI    *testpki.PKI
	productionPKIDir string
	tlsRoots         *x509.CertPool
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	wd, _ := os.Getwd()
	repoRoot = filepath.Dir(wd)
	tmp, err := os.MkdirTemp("", "obgw-integration")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binary = filepath.Join(tmp, "obgw")
	build := exec.Command("go", "build", "-o", binary, "./cmd/obgw")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building obgw:", err)
		return 1
	}
	pki, err = testpki.Load(filepath.Join(repoRoot, "testdata", "pki"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "loading test PKI:", err)
		return 1
	}
	if document, err = openapitest.Document(); err != nil {
		fmt.Fprintln(os.Stderr, "loading the OpenAPI document:", err)
		return 1
	}
	tlsRoots = x509.NewCertPool()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "pki", "tls-ca.pem"))
	if err != nil || !tlsRoots.AppendCertsFromPEM(raw) {
		fmt.Fprintln(os.Stderr, "loading tls-ca.pem:", err)
		return 1
	}
	if productionPKI, err = testpki.GenerateUnpublished(time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "generating the production PKI:", err)
		return 1
	}
	productionPKIDir = filepath.Join(tmp, "production-pki")
	if err := productionPKI.WriteDir(productionPKIDir); err != nil {
		fmt.Fprintln(os.Stderr, "writing the production PKI:", err)
		return 1
	}
	tlsRoots.AddCert(productionPKI.TLSCA.Certificate)
	return m.Run()
}

// pkiEnv points every trust setting of the shipped Caddyfile (and of the
// split backend's, testdata/split) at a PKI:
// the published test PKI for a sandbox, which `make run` asks for too, or
// the unpublished one for production, which refuses the test PKI.
func pkiEnv(production bool) []string {
	dir := "testdata/pki"
	if production {
		dir = productionPKIDir
	}
	var env []string
	for _, v := range [][2]string{
		{"OBGW_TLS_CERT", testpki.FileServer}, {"OBGW_TLS_KEY", testpki.FileServerKey},
		{"OBGW_QTSP_CAS", testpki.FileQTSPCAs}, {"OBGW_CRL", testpki.FileQTSPCRL}, {"OBGW_REGISTRY", testpki.FileRegistry},
		{"OBGW_BANK_SEAL_CERT", testpki.FileBankSeal}, {"OBGW_BANK_SEAL_KEY", testpki.FileBankSealKey},
		{"OBGW_BACKEND_CA", testpki.FileTLSCA}, {"OBGW_BACKEND_CLIENT_CERT", testpki.FileGateway}, {"OBGW_BACKEND_CLIENT_KEY", testpki.FileGatewayKey},
		{"OBGW_BACKEND_TLS_CERT", testpki.FileServer}, {"OBGW_BACKEND_TLS_KEY", testpki.FileServerKey}, {"OBGW_BACKEND_CLIENT_CA", testpki.FileGatewayCA},
		{"OBGW_UPSTREAM_CA", testpki.FileTLSCA}, {"OBGW_UPSTREAM_CLIENT_CERT", testpki.FileGateway}, {"OBGW_UPSTREAM_CLIENT_KEY", testpki.FileGatewayKey},
	} {
		env = append(env, v[0]+"="+filepath.Join(dir, v[1]))
	}
	return env
}

// productionEnv reports whether env (the last OBGW_ENV of it; the harness
// asks for a sandbox unless told otherwise) starts a production deployment.
func productionEnv(env []string) bool {
	production := false
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "OBGW_ENV="); ok {
			production = v != "sandbox"
		}
	}
	return production
}

// freePort returns a loopback port nobody listens on right now, below the
// kernel's ephemeral range (Linux: 32768 and up), each once per test
// process. A port the kernel picked (":0") could be picked again, for a
// listener or an outgoing connection of a test running in parallel,
// between this check and the gateway's listen ("address already in
// use"); the kernel picks none below its range.
func freePort(t testing.TB) int {
	t.Helper()
	portsGiven.Lock()
	defer portsGiven.Unlock()
	for range 1000 {
		p := 20000 + rand.IntN(12000)
		if portsGiven.m[p] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven.m[p] = true
		return p
	}
	t.Fatal("no free port between 20000 and 32000")
	return 0
}

// portsGiven are the ports freePort handed out.
var portsGiven = struct {
	sync.Mutex
	m map[int]bool
}{m: map[int]bool{}}

// gateway is one running obgw process.
type gateway struct {
	admin  string // 127.0.0.1:port of the admin endpoint
	addr   string // localhost:port
	health string // 127.0.0.1:port of the plain-HTTP health listener
	cmd    *exec.Cmd
	output *bytes.Buffer
	// fixtureWhy says why the gateway's routes are not the product's
	// (fixture); "" for the product.
	fixtureWhy string
	// basePath is OBGW_BASE_PATH when the test set it.
	basePath string
	// pki is the PKI the gateway trusts: pki for a sandbox, productionPKI
	// for production.
	pki *testpki.PKI
}

// startGateway runs the binary with config (relative to the repo root) and
// env, and waits until it accepts TLS connections.
func startGateway(t testing.TB, config string, env ...string) *gateway {
	t.Helper()
	port := freePort(t)
	g := start(t, config, port, true, append([]string{fmt.Sprintf("OBGW_LISTEN=localhost:%d", port)}, env...)...)
	return g
}

// startBackend runs a backend-only process at port (mutual TLS with the
// test PKI's defaults in testdata/split/backend.Caddyfile) and waits until
// it accepts TCP connections.
func startBackend(t testing.TB, config string, port int, env ...string) *gateway {
	t.Helper()
	return start(t, config, port, false, append([]string{fmt.Sprintf("OBGW_BACKEND_LISTEN=localhost:%d", port)}, env...)...)
}

// backendURL is the OBGW_BACKEND_URL of a backend started at port.
func backendURL(port int) string {
	return fmt.Sprintf("https://localhost:%d", port)
}

// start runs the binary with config and env and waits for its port.
func start(t testing.TB, config string, port int, useTLS bool, env ...string) *gateway {
	t.Helper()
	admin := freePort(t)
	health := freePort(t)
	g := &gateway{addr: fmt.Sprintf("localhost:%d", port), admin: fmt.Sprintf("127.0.0.1:%d", admin),
		health: fmt.Sprintf("127.0.0.1:%d", health), output: new(bytes.Buffer), pki: pki}
	production := productionEnv(env)
	if production {
		g.pki = productionPKI
	}
	g.cmd = exec.Command(binary, "run", "--config", config, "--adapter", "caddyfile")
	g.cmd.Dir = repoRoot
	g.cmd.Env = append(append(os.Environ(), pkiEnv(production)...),
		fmt.Sprintf("OBGW_ADMIN=127.0.0.1:%d", admin),
		// The shipped Caddyfile's plain-HTTP health listener.
		fmt.Sprintf("OBGW_HEALTH_PORT=%d", health),
		"HOME="+t.TempDir(), // Caddy's own storage, away from the user's
		"XDG_DATA_HOME="+t.TempDir(),
		"XDG_CONFIG_HOME="+t.TempDir(),
		// The shipped configuration is production by default; tests ask
		// for the sandbox (its data set and mock SCA) unless they set
		// OBGW_ENV themselves (the last value wins).
		"OBGW_ENV=sandbox",
	)
	g.cmd.Env = append(g.cmd.Env, env...)
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "OBGW_BASE_PATH="); ok {
			g.basePath = v
		}
	}
	lw := &lockedWriter{w: g.output}
	g.cmd.Stdout, g.cmd.Stderr = lw, lw
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	register(t, g)
	exited := make(chan struct{})
	go func() { _ = g.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = g.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("gateway output:\n%s", g.output.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var c net.Conn
		var err error
		if useTLS {
			c, err = tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", port),
				&tls.Config{ServerName: "localhost", RootCAs: tlsRoots})
		} else {
			c, err = net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		}
		if err == nil {
			c.Close()
			return g
		}
		select {
		case <-exited:
			t.Fatalf("gateway exited:\n%s", g.output.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("gateway did not start:\n%s", g.output.String())
	return nil
}

// reload loads the gateway's running configuration again through its
// admin API, as `obgw reload` does: the obgw app and every handler are
// provisioned anew, in a new metrics registry.
func reload(t testing.TB, g *gateway) {
	t.Helper()
	resp, err := http.Get("http://" + g.admin + "/config/")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+g.admin+"/load", bytes.NewReader(cfg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cache-Control", "must-revalidate") // reload although unchanged
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reload: %d %s", resp.StatusCode, b)
	}
}

// logs returns what the gateway wrote so far.
func (g *gateway) logs() string {
	w := g.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return g.output.String()
}

// waitForLog waits until the gateway's log holds want, for 20 s at most.
func (g *gateway) waitForLog(t testing.TB, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(g.logs(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %q:\n%s", want, g.logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// client returns an HTTPS client trusting the test TLS CA, optionally
// presenting a QWAC. Every exchange it has with a gateway is checked
// (contract_test.go): against the OpenAPI document and for the bank's
// signature, reported to the test
// the request names (newRequest, browserRequest, send).
func client(qwac *testpki.KeyPair) *http.Client {
	cfg := &tls.Config{RootCAs: tlsRoots, MinVersion: tls.VersionTLS12}
	if qwac != nil {
		cert := qwac.TLSCertificate()
		cfg.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &checkedTransport{
		// No transparent gzip: the checks see the bytes as sent, which a
		// signed answer's Digest covers; a test that wants an encoding
		// asks for it (Accept-Encoding) and reads it raw.
		base:   &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, DisableCompression: true},
		checks: []exchangeCheck{&documentCheck{doc: document}, signatureCheck{}},
	}}
}

// signer returns a tppclient signer for the test TPP id of the published
// test PKI, which sandboxes trust.
func signer(t testing.TB, id string) *tppclient.Signer {
	t.Helper()
	return signerOf(t, pki, id)
}

// signer returns a tppclient signer for the test TPP id of the PKI g
// trusts.
func (g *gateway) signer(t testing.TB, id string) *tppclient.Signer {
	t.Helper()
	return signerOf(t, g.pki, id)
}

func signerOf(t testing.TB, p *testpki.PKI, id string) *tppclient.Signer {
	t.Helper()
	tpp := p.TPP(id)
	if tpp == nil {
		t.Fatalf("no test TPP %q", id)
	}
	return &tppclient.Signer{Key: tpp.Seal.Key, Certificate: tpp.Seal.Certificate.Raw}
}

// bgError is a decoded Berlin Group error body.
type bgError struct {
	TPPMessages []struct {
		Category, Code, Text, Path string
	} `json:"tppMessages"`
	Links map[string]struct {
		Href  string   `json:"href"`
		Verbs []string `json:"verbs"`
	} `json:"_links"`
}

func (b bgError) code() string {
	if len(b.TPPMessages) != 1 {
		return fmt.Sprintf("<%d messages>", len(b.TPPMessages))
	}
	return b.TPPMessages[0].Code
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   []byte
	err    bgError
}

// send sends req with c (a client) and reads the answer; the exchange's
// checks report to t.
func send(t testing.TB, c *http.Client, req *http.Request) response {
	t.Helper()
	reportTo(req, t)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, body: body}
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(body, &r.err); err != nil {
			t.Fatalf("%s %s: error body is not JSON: %q", req.Method, req.URL, body)
		}
	}
	return r
}

// newRequest builds an unsigned request with the usual AIS headers, whose
// checks report to t.
func newRequest(t testing.TB, g *gateway, method, path string, body []byte) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, "https://"+g.addr+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	reportTo(req, t)
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=1")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	return req
}

// browserRequest builds a request as the PSU's browser sends it to rawURL
// (an SCA page, the identity provider): a form when form is not nil,
// whose checks report to t.
func browserRequest(t testing.TB, method, rawURL string, form url.Values) *http.Request {
	t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(context.Background(), method, rawURL, rd)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html")
	reportTo(req, t)
	return req
}

// rss returns the resident memory of process pid in KiB.
func rss(t testing.TB, pid int) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// goroutines returns the gateway's goroutine count, from its admin
// endpoint's profile.
func goroutines(t testing.TB, g *gateway) int {
	t.Helper()
	resp, err := http.Get("http://" + g.admin + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "goroutine profile: total")))
	return n
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
