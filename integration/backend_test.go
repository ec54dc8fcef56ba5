package integration

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store/storetest"
	"github.com/obgw/obgw/testpki"
)

// databaseEnv returns the environment that points a gateway at a fresh
// database of kind: an SQLite data directory, or a new PostgreSQL schema.
func databaseEnv(t *testing.T, kind string) []string {
	t.Helper()
	if kind == "sqlite" {
		return []string{"OBGW_DATA_DIR=" + t.TempDir()}
	}
	url, _ := storetest.Schema(t, "t_it")
	return []string{"OBGW_DATABASE_URL=" + url}
}

// tppSession drives the TPP side: signed calls through the gateway.
type tppSession struct {
	t      *testing.T
	g      *gateway
	c      *http.Client
	tpp    string
	sid    string
	psuID  string
	corpID string
}

func (s *tppSession) call(method, path string, psuPresent bool) response {
	s.t.Helper()
	req := newRequest(s.t, s.g, method, path, nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	if s.psuID != "" {
		req.Header.Set("PSU-ID", s.psuID)
	}
	if s.corpID != "" {
		req.Header.Set("PSU-Corporate-ID", s.corpID)
	}
	if psuPresent {
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
	}
	if err := s.g.signer(s.t, s.tpp).Sign(req, nil); err != nil {
		s.t.Fatal(err)
	}
	return send(s.t, s.c, req)
}

var (
	csrfRe    = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	accountRe = regexp.MustCompile(`name="account" value="([^"]+)"`)
)

// psuBrowser walks the SCA page over HTTP with a cookie jar, as a browser
// would, without following the final redirect to the TPP.
func psuBrowser(t *testing.T, g *gateway, href, number string, accounts int) url.Values {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := client(nil)
	c.Jar = jar
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != g.addr {
			return http.ErrUseLastResponse
		}
		return nil
	}
	base := "https://" + g.addr
	get := func() string {
		resp, err := c.Do(browserRequest(t, http.MethodGet, base+href, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// A sealed link (a request without consent) redirects to its
		// flow's page, where the forms post.
		href = resp.Request.URL.Path
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("SCA page: %d %s", resp.StatusCode, b)
		}
		return string(b)
	}
	post := func(page string, form url.Values) *http.Response {
		form.Set("csrf", csrfRe.FindStringSubmatch(page)[1])
		resp, err := c.Do(browserRequest(t, http.MethodPost, base+href, form))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	read := func(r *http.Response) string { defer r.Body.Close(); b, _ := io.ReadAll(r.Body); return string(b) }
	page := get()
	page = read(post(page, url.Values{"step": {"identify"}, "customerNumber": {number}}))
	page = read(post(page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
	form := url.Values{"step": {"confirm"}}
	for _, m := range accountRe.FindAllStringSubmatch(page, accounts) {
		form.Add("account", m[1])
	}
	resp := post(page, form)
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Host != "tpp.example.no" {
		t.Fatalf("final redirect: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query()
}

// TestConsentThroughGateway runs the whole account-information journey
// through the shipped Caddyfile: consent, SCA page, redirect, signed reads,
// on the embedded SQLite store and on PostgreSQL.
func TestConsentThroughGateway(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			g := startGateway(t, "Caddyfile", databaseEnv(t, kind)...)
			journey(t, g)
		})
	}
}

func journey(t *testing.T, g *gateway) {
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("GET", "/v1/accounts", true)
	if got.status != 401 || got.err.code() != "CONSENT_INVALID" || got.err.Links["scaRedirect"].Href == "" {
		t.Fatalf("before consent: %d %s", got.status, got.body)
	}
	got = s.call("POST", "/v1/bank-offered-consents", true)
	var created struct {
		ConsentID string `json:"consentId"`
		Links     map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil || !strings.HasPrefix(created.Links["scaRedirect"].Href, "/v1/") {
		t.Fatalf("create consent: %d %s", got.status, got.body)
	}
	q := psuBrowser(t, g, created.Links["scaRedirect"].Href, sandbox.KariNumber, 3)
	if q.Get("tpp-session-id") != s.sid || q.Get("context") != "PRIVATE" {
		t.Fatalf("redirect %v", q)
	}
	s.psuID = q.Get("psu-id")
	got = s.call("GET", "/v1/accounts?withBalance=true", true)
	var list struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
			IBAN       string `json:"iban"`
		} `json:"accounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) != 2 {
		t.Fatalf("accounts: %d %s", got.status, got.body)
	}
	got = s.call("GET", "/v1/accounts/"+list.Accounts[0].ResourceID+"/transactions?limit=2", true)
	var page struct {
		Transactions struct {
			Booked []struct {
				TransactionID string `json:"transactionId"`
			} `json:"booked"`
			Links map[string]struct{ Href string } `json:"_links"`
		} `json:"transactions"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &page) != nil || len(page.Transactions.Booked) != 2 || page.Transactions.Links["next"].Href == "" {
		t.Fatalf("transactions: %d %s", got.status, got.body)
	}
	// The next link is followed as given: same page size, stable ids.
	got = s.call("GET", page.Transactions.Links["next"].Href, true)
	if got.status != 200 || strings.Contains(string(got.body), page.Transactions.Booked[0].TransactionID) {
		t.Fatalf("next page: %d %s", got.status, got.body)
	}
	got = s.call("GET", "/v1/accounts/"+list.Accounts[0].ResourceID+"/balances", false)
	if got.status != 200 || !strings.Contains(string(got.body), `"closingBooked"`) {
		t.Fatalf("balances without the PSU: %d %s", got.status, got.body)
	}
	got = s.call("GET", "/v1/card-accounts", true)
	var cards struct {
		CardAccounts []struct {
			ResourceID string `json:"resourceId"`
			MaskedPan  string `json:"maskedPan"`
		} `json:"cardAccounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &cards) != nil || len(cards.CardAccounts) != 1 || cards.CardAccounts[0].MaskedPan == "" {
		t.Fatalf("card accounts: %d %s", got.status, got.body)
	}
	got = s.call("GET", "/v1/card-accounts/"+cards.CardAccounts[0].ResourceID+"/transactions?bookingStatus=both", true)
	if got.status != 200 || !strings.Contains(string(got.body), `"cardTransactionId"`) {
		t.Fatalf("card transactions: %d %s", got.status, got.body)
	}
	got = s.call("GET", "/v1/agreements", true)
	if got.status != 200 || !strings.Contains(string(got.body), `"psuCorporateId"`) {
		t.Fatalf("agreements: %d %s", got.status, got.body)
	}
	if got = s.call("GET", "/v1/bank-offered-consents/"+created.ConsentID+"/status", true); !strings.Contains(string(got.body), `"valid"`) {
		t.Fatalf("consent status: %d %s", got.status, got.body)
	}
	// Another TPP cannot use this PSU-ID.
	other := &tppSession{t: t, g: g, c: s.c, tpp: "aisp", sid: s.sid, psuID: s.psuID}
	if got = other.call("GET", "/v1/accounts", true); got.status != 401 {
		t.Fatalf("other TPP: %d %s", got.status, got.body)
	}
}

// TestSplitDeployment runs the gateway and a backend-only process, as a
// bank would across two hosts, and the same journey through both, over
// mutual TLS: the gateway verifies the backend's certificate against
// OBGW_BACKEND_CA and presents its client certificate, which the backend
// requires.
func TestSplitDeployment(t *testing.T) {
	port := freePort(t)
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("s", 32)))
	env := append(databaseEnv(t, "sqlite"), "OBGW_CONTEXT_KEY="+key)
	startBackend(t, "testdata/split/backend.Caddyfile", port, env...)
	g := startGateway(t, "Caddyfile", "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL="+backendURL(port), "OBGW_CONTEXT_KEY="+key)
	journey(t, g)

	// Straight to the backend: without a client certificate from the
	// gateway CA the TLS handshake fails (the tpp QWAC is not one)...
	direct := func(clientCert *testpki.KeyPair) (*http.Response, error) {
		req, _ := http.NewRequest("GET", backendURL(port)+"/v1/accounts", nil)
		req.Header.Set("X-Request-ID", uuid.NewString())
		req.Header.Set("X-Obgw-Context", "eyJhbGciOiJIUzI1NiJ9.eyJ0cHAiOiJQU0ROTy1GU0EtOTg3NjU0MzIxIn0.AAAA")
		cfg := &tls.Config{RootCAs: tlsRoots}
		if clientCert != nil {
			cfg.Certificates = []tls.Certificate{clientCert.TLSCertificate()}
		}
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
		defer c.CloseIdleConnections()
		return c.Do(req)
	}
	for name, cert := range map[string]*testpki.KeyPair{"none": nil, "tpp QWAC": pki.TPP("tpp").Web} {
		if resp, err := direct(cert); err == nil {
			resp.Body.Close()
			t.Fatalf("backend accepted a client with certificate %s: %d", name, resp.StatusCode)
		}
	}
	// ...and with the gateway's certificate, it still refuses a request
	// without a valid context token, even with a forged context header.
	resp, err := direct(pki.Gateway)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(b), "tppMessages") {
		t.Fatalf("direct call to backend: %d %s", resp.StatusCode, b)
	}

	// A gateway that cannot establish the link refuses with 503
	// SERVICE_UNAVAILABLE, never a 500 or the backend's answer: the
	// backend's certificate is not signed by OBGW_BACKEND_CA, or the
	// backend does not accept the gateway's client certificate.
	for name, env := range map[string][]string{
		"backend certificate from another CA": {"OBGW_BACKEND_CA=testdata/pki/qtsp-cas.pem"},
		"client certificate from another CA":  {"OBGW_BACKEND_CLIENT_CERT=testdata/pki/tpp-qwac.pem", "OBGW_BACKEND_CLIENT_KEY=testdata/pki/tpp-qwac-key.pem"},
	} {
		bad := startGateway(t, "Caddyfile", append(env, "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL="+backendURL(port), "OBGW_CONTEXT_KEY="+key)...)
		if got := signedCall(t, bad, "/v1/accounts", pki.TPP("tpp").Seal); got.status != 503 || got.err.code() != "SERVICE_UNAVAILABLE" {
			t.Fatalf("%s: %d %s", name, got.status, got.body)
		}
		if got := signedCall(t, g, "/v1/accounts", pki.TPP("tpp").Seal); got.status != 401 || got.err.code() != "CONSENT_INVALID" {
			t.Fatalf("good gateway after %s: %d %s", name, got.status, got.body)
		}
	}
}

// TestSandboxHasItsOwnDataDir (issue 33, 5): with no database or data
// directory set, a sandbox keeps its embedded store in the sandbox
// subdirectory of Caddy's data directory, and production (where `obgw
// test-idp --seed` puts the bank's customers) in the directory itself: a
// sandbox and a production run on one machine never share a store.
func TestSandboxHasItsOwnDataDir(t *testing.T) {
	data := t.TempDir()
	g := startGateway(t, "Caddyfile", "XDG_DATA_HOME="+data)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	if got := s.call("POST", "/v1/sandbox/initialize", false); got.status >= 500 {
		t.Fatalf("a sandbox call: %d %s", got.status, got.body)
	}
	if _, err := os.Stat(filepath.Join(data, "caddy", "obgw", "sandbox", "obgw.db")); err != nil {
		t.Fatalf("the sandbox's store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "caddy", "obgw", "obgw.db")); err == nil {
		t.Fatal("the sandbox made production's store")
	}
}
