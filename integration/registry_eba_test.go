package integration

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/gateway/registry/ebatest"
	"github.com/obgw/obgw/testpki"
)

// ebaSource serves an EBA register export over https with the production
// PKI's server certificate (trusted through trust_sources_ca), counting
// the fetches.
type ebaSource struct {
	srv  *httptest.Server
	mu   sync.Mutex
	body []byte
	gets int
}

func newEBASource(t *testing.T, body []byte) *ebaSource {
	t.Helper()
	e := &ebaSource{body: body}
	e.srv = productionTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.gets++
		w.Header().Set("ETag", `"export-1"`)
		if r.Header.Get("If-None-Match") == `"export-1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(e.body)
	}))
	return e
}

// productionTLSServer serves h over https with the production PKI's
// server certificate (localhost), which trust_sources_ca trusts in the
// tests: a trust source's address.
func productionTLSServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(productionPKIDir, testpki.FileServer), filepath.Join(productionPKIDir, testpki.FileServerKey))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// localhostURL is path on srv by the name its certificate holds.
func localhostURL(srv *httptest.Server, path string) string {
	return "https://localhost:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:] + path
}

func (e *ebaSource) url() string { return localhostURL(e.srv, "/PSDMD.json") }

func (e *ebaSource) fetches() int { e.mu.Lock(); defer e.mu.Unlock(); return e.gets }

// ebaExportOf is the register for the production PKI's TPPs: tpp a
// payment institution granted both services in Norway; withdrawn's
// authorisation withdrawn; aisp a payment institution granted payment
// initiation only in Norway; unregistered's number only an agent's;
// rsa3072 absent; and 2,000 agents besides.
func ebaExportOf(t *testing.T) []byte {
	number := func(id string) string {
		o := productionPKI.TPP(id).OrganizationIdentifier
		return o[strings.LastIndex(o, "-")+1:]
	}
	var b bytes.Buffer
	err := ebatest.Write(&b, []ebatest.Institution{
		{Authority: "NO_FSA", Type: "PSD_PI", Reference: number("tpp"), Names: []string{"Example TPP AS"}, Dates: []string{"2019-01-01"},
			Services: map[string][]string{"NO": {"PS_070", "PS_080"}}},
		{Authority: "NO_FSA", Type: "PSD_PI", Reference: number("withdrawn"), Names: []string{"Example Withdrawn AS"}, Dates: []string{"2019-01-01", "2025-06-30"},
			Services: map[string][]string{"NO": {"PS_070", "PS_080"}}},
		{Authority: "NO_FSA", Type: "PSD_PI", Reference: number("aisp"), Names: []string{"Example PISP AS"}, Dates: []string{"2019-01-01"},
			Services: map[string][]string{"NO": {"PS_070"}, "SE": {"PS_070", "PS_080"}}},
		{Authority: "NO_FSA", Type: "PSD_AG", Reference: number("unregistered"), Names: []string{"Example Agent"}, Dates: []string{"2019-01-01"},
			Services: map[string][]string{"NO": {"PS_070", "PS_080"}}},
	}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ebaEnv is a production deployment whose register is the EBA's alone,
// fetched from src and kept in store.
func ebaEnv(src, store string) []string {
	return append(productionIdPEnv(), "OBGW_REGISTRY=", "OBGW_REGISTRY_EBA="+src, "OBGW_TRUST_STORE="+store,
		"OBGW_TRUST_SOURCES_CA="+filepath.Join(productionPKIDir, testpki.FileTLSCA))
}

// askConsent has TPP id ask for a bank-offered consent (a PSP_AI
// operation) and returns the answer.
func askConsent(t *testing.T, g *gateway, id string) response {
	t.Helper()
	req := newRequest(t, g, http.MethodPost, "/v1/bank-offered-consents", nil)
	req.Header.Set("TPP-Session-ID", uuid.NewString())
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := g.signer(t, id).Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	return send(t, client(nil), req)
}

// waitForRegister waits until g has its register: a registered TPP's
// consent is created.
func waitForRegister(t *testing.T, g *gateway) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got := askConsent(t, g, "tpp")
		if got.status == http.StatusCreated {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the EBA register never came: %d %s\n%s", got.status, got.body, g.logs())
		}
	}
}

func wantCode(t *testing.T, name string, got response, status int, code string) {
	t.Helper()
	var e bgError
	if got.status != status || json.Unmarshal(got.body, &e) != nil || len(e.TPPMessages) == 0 || e.TPPMessages[0].Code != code {
		t.Fatalf("%s: %d %s, want %d %s", name, got.status, got.body, status, code)
	}
}

// TestEBARegisterInProduction (issue 28, 2): a production deployment
// whose only register is the EBA's, fetched over https from its address,
// accepts the registered TPP and refuses, with the precise Berlin Group
// code, a withdrawn authorisation (CERTIFICATE_BLOCKED), a payment
// institution not granted account information in Norway (ROLE_INVALID),
// a number that is an agent's (CERTIFICATE_BLOCKED), and a TPP the
// register does not list (CERTIFICATE_BLOCKED). Two instances sharing
// PostgreSQL fetch the register once between them; an instance started
// while the register's address is down serves the stored register.
func TestEBARegisterInProduction(t *testing.T) {
	src := newEBASource(t, ebaExportOf(t))
	db := databaseEnv(t, "postgres")
	store := strings.TrimPrefix(db[0], "OBGW_DATABASE_URL=")
	env := append(ebaEnv(src.url(), store), db...)
	first := startGateway(t, "Caddyfile", env...)
	second := startGateway(t, "Caddyfile", env...)
	waitForRegister(t, first)
	waitForRegister(t, second)
	if n := src.fetches(); n != 1 {
		t.Fatalf("two instances fetched the register %d times, want once between them", n)
	}
	for _, g := range []*gateway{first, second} {
		wantCode(t, "a withdrawn authorisation", askConsent(t, g, "withdrawn"), http.StatusUnauthorized, "CERTIFICATE_BLOCKED")
		wantCode(t, "account information not granted in Norway", askConsent(t, g, "aisp"), http.StatusUnauthorized, "ROLE_INVALID")
		wantCode(t, "an agent's number", askConsent(t, g, "unregistered"), http.StatusUnauthorized, "CERTIFICATE_BLOCKED")
		wantCode(t, "not in the register", askConsent(t, g, "rsa3072"), http.StatusUnauthorized, "CERTIFICATE_BLOCKED")
	}
	if !strings.Contains(first.logs()+second.logs(), `"msg":"trust source fetched"`) {
		t.Fatalf("no instance logged the fetch:\n%s", first.logs())
	}

	// The register's address down: a new instance serves the stored one.
	src.srv.Close()
	third := startGateway(t, "Caddyfile", env...)
	// Caddy starts its apps in no set order: the server may answer (503,
	// not ready) before the obgw app has loaded the stored register.
	waitForRegister(t, third)
	wantCode(t, "a withdrawn authorisation, from the stored register", askConsent(t, third, "withdrawn"), http.StatusUnauthorized, "CERTIFICATE_BLOCKED")
	if !strings.Contains(third.logs(), `"source":"eba `) || !strings.Contains(third.logs(), `"entries":3`) {
		t.Fatalf("the start-up report of the stored register:\n%s", third.logs())
	}
}

// TestEBARegisterFailsClosed: before a register was ever fetched, TPPs
// are refused with 503 (never let through), and readiness names it; a
// production register over plain http is refused at start.
func TestEBARegisterFailsClosed(t *testing.T) {
	env := ebaEnv("https://localhost:1/unreachable.json", filepath.Join(t.TempDir(), "trust.db"))
	g := startGateway(t, "Caddyfile", env...)
	wantCode(t, "no register yet", askConsent(t, g, "tpp"), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if got := internalGet(t, "http://"+g.health+"/readyz"); got.status != http.StatusServiceUnavailable || !strings.Contains(string(got.body), "registry_eba") {
		t.Fatalf("readiness without a register: %d %s", got.status, got.body)
	}
	out, err := productionCommand(t, "validate", ebaEnv("http://register.example/PSDMD.json", filepath.Join(t.TempDir(), "trust.db"))...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "production fetches the register over https") {
		t.Fatalf("a register over http in production: %v\n%s", err, out)
	}
}
