package integration

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/testidp"
)

// Production SCA: the shipped Caddyfile with OBGW_ENV unset (production)
// and the bank's identity provider configured (OBGW_SCA_OIDC_*), here a
// real OpenID provider (testidp: zitadel's certified op) whose users are
// the bank's customers Kari (acr high) and Ola (acr substantial), plus
// Per, whom the provider knows and the bank does not.

const (
	acrSubstantial = "urn:obgw:acr:substantial"
	acrHigh        = "urn:obgw:acr:high"
	perNumber      = "01017012345"
)

type idpDeployment struct {
	g   *gateway
	idp *testidp.Provider
	// backend is the split deployment's backend service, nil in process.
	backend *gateway
	// callback is the redirect URI registered at the provider for /v1.
	callback string
	// base is the base path the TPP calls under ("" or /api-sandbox).
	base string
	// env names the deployment's database, for obgw's commands.
	env []string
}

// startWithIdP starts a production deployment on kind's store, seeded
// with the bank's customers (the sandbox data set, as the bank's own
// systems would hold them) by `obgw test-idp --seed`, as the README's
// local production example seeds them, whose PSUs log in at a fresh test
// provider.
// split runs the backend as its own service behind the gateway: the
// backend runs the login, its callback reaches it through the gateway's
// SCA route.
func startWithIdP(t *testing.T, kind string, split bool) *idpDeployment {
	t.Helper()
	env := databaseEnv(t, kind)
	dbEnv := env
	seed := exec.Command(binary, "test-idp", "--seed")
	seed.Dir = repoRoot
	seed.Env = append(os.Environ(), env...)
	if out, err := seed.CombinedOutput(); err != nil || !strings.Contains(string(out), "customers") {
		t.Fatalf("obgw test-idp --seed: %v\n%s", err, out)
	}

	port := freePort(t)
	callback := fmt.Sprintf("https://localhost:%d/v1/sca/callback", port)
	baseCallback := fmt.Sprintf("https://localhost:%d/api-sandbox/v1/sca/callback", port)
	p, err := testidp.Start(testidp.Config{
		Users: []testidp.User{
			{NationalID: sandbox.KariNumber, Password: "test", Name: "Kari Nordmann", ACR: acrHigh},
			{NationalID: sandbox.OlaNumber, Password: "test", Name: "Ola Nordmann", ACR: acrSubstantial},
			{NationalID: perNumber, Password: "test", Name: "Per Utenbank", ACR: acrHigh},
		},
		Clients: []testidp.Client{
			{ID: "obgw", Secret: "obgw-secret", RedirectURIs: []string{callback, baseCallback}},
			{ID: "other", Secret: "other-secret", RedirectURIs: []string{callback}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	env = append(env, "OBGW_ENV=",
		"OBGW_SCA_OIDC_ISSUER="+p.Issuer(), "OBGW_SCA_OIDC_CLIENT_ID=obgw", "OBGW_SCA_OIDC_CLIENT_SECRET=obgw-secret",
		"OBGW_SCA_OIDC_CUSTOMER_CLAIM=nnin", "OBGW_SCA_OIDC_ACR_VALUES="+acrSubstantial+" "+acrHigh,
		"OBGW_SCA_OIDC_PAYMENT_ACR_VALUES="+acrHigh, "OBGW_SCA_OIDC_APP_PARAM=login_hint BankID-app")
	gwEnv := env
	var backend *gateway
	if split {
		key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
		bport := freePort(t)
		// The callback URL as the bank registers it: the public host.
		backend = startBackend(t, "testdata/split/backend.Caddyfile", bport, append(env, "OBGW_CONTEXT_KEY="+key, "OBGW_SCA_OIDC_REDIRECT_URL="+callback)...)
		gwEnv = []string{"OBGW_ENV=", "OBGW_BACKEND=proxy", "OBGW_BACKEND_URL=" + backendURL(bport), "OBGW_CONTEXT_KEY=" + key}
	}
	g := start(t, "Caddyfile", port, true, append(gwEnv, fmt.Sprintf("OBGW_LISTEN=localhost:%d", port))...)
	return &idpDeployment{g: g, idp: p, backend: backend, callback: callback, env: dbEnv}
}

// newTLSCallback is a TPP redirect endpoint over https (production refuses
// http redirect URIs).
func newTLSCallback(t *testing.T) *tppCallback {
	cb := &tppCallback{got: make(chan url.Values, 4), path: "/cb"}
	cb.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != cb.path {
			http.NotFound(w, r)
			return
		}
		cb.got <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>TPP</title><p id=done>Back at the TPP</p>"))
	}))
	t.Cleanup(cb.srv.Close)
	return cb
}

func tlsCallbackURI(cb *tppCallback) string {
	u, _ := url.Parse(cb.srv.URL)
	return "https://localhost:" + u.Port() + cb.path + "?state=abc"
}

// startFlow has the TPP start SCA: a consent, or a payment of amount
// from one account to another; it returns the scaRedirect link.
func (d *idpDeployment) startFlow(t *testing.T, s *tppSession, redirect string, payment []byte, app bool) string {
	t.Helper()
	link, _ := d.startFlowFor(t, s, redirect, payment, app)
	return link
}

// startFlowFor is startFlow that also returns the id of what it created
// (the consentId or paymentId).
func (d *idpDeployment) startFlowFor(t *testing.T, s *tppSession, redirect string, payment []byte, app bool) (link, id string) {
	t.Helper()
	path := "/v1/bank-offered-consents"
	if payment != nil {
		path = "/v1/payments/domestic-norway-credit-transfers"
	}
	req := newRequest(t, d.g, http.MethodPost, d.base+path, payment)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("TPP-Redirect-URI", redirect)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if app {
		req.Header.Set("TPP-Redirect-Preferred", "false")
	}
	if err := s.g.signer(t, s.tpp).Sign(req, payment); err != nil {
		t.Fatal(err)
	}
	got := send(t, s.c, req)
	var created struct {
		ConsentID string                           `json:"consentId"`
		PaymentID string                           `json:"paymentId"`
		Links     map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil || created.Links["scaRedirect"].Href == "" {
		t.Fatalf("%s: %d %s", path, got.status, got.body)
	}
	return "https://" + d.g.addr + created.Links["scaRedirect"].Href, created.ConsentID + created.PaymentID
}

func transferBody(from, to string) []byte {
	return []byte(`{"instructedAmount":{"currency":"NOK","amount":"120.00"},"debtorAccount":{"iban":"` + bankaccount.IBAN("NO", from) +
		`"},"creditorAccount":{"iban":"` + bankaccount.IBAN("NO", to) + `"},"creditorName":"Mottaker","remittanceInformationUnstructured":"Test"}`)
}

// TestProductionSCAInChromium: a PSU completes consent in a real headless
// Chromium through the bank's identity provider (its login page), then
// chooses accounts, and the TPP reads them with the PSU-ID; in-process on
// SQLite, and split (the backend its own service) on PostgreSQL.
func TestProductionSCAInChromium(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		split      bool
	}{{"in-process/sqlite", "sqlite", false}, {"split/postgres", "postgres", true}} {
		t.Run(c.name, func(t *testing.T) {
			d := startWithIdP(t, c.kind, c.split)
			if !c.split {
				// Under the base path, as the dialect's tooling calls.
				d.base = "/api-sandbox"
			}
			productionSCAInChromium(t, d)
		})
	}
}

func productionSCAInChromium(t *testing.T, d *idpDeployment) {
	cb := newTLSCallback(t)
	s := &tppSession{t: t, g: d.g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	link := d.startFlow(t, s, tlsCallbackURI(cb), nil, true)
	if !strings.Contains(link, d.base+"/v1/sca/") {
		t.Fatalf("scaRedirect %s: want it under %q", link, d.base)
	}

	ctx := browser(t)
	var page string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#login`, chromedp.ByID),
		chromedp.Text(`body`, &page, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("SCA page: %v\n%s", err, d.g.logs())
	}
	if strings.Contains(page, "customerNumber") || strings.Contains(page, "sandbox") {
		t.Fatalf("the production SCA page offers the sandbox's identification: %s", page)
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`#login`, chromedp.ByID),
		chromedp.WaitVisible(`#username`, chromedp.ByID),
		chromedp.SendKeys(`#username`, sandbox.KariNumber, chromedp.ByID),
		chromedp.SendKeys(`#password`, "test", chromedp.ByID),
		chromedp.Click(`#submit`, chromedp.ByID),
		chromedp.WaitVisible(`#private`, chromedp.ByID),
	); err != nil {
		var loc string
		_ = chromedp.Run(ctx, chromedp.Location(&loc), chromedp.Text(`body`, &page, chromedp.ByQuery))
		t.Fatalf("login at the identity provider: %v at %s: %s\n%s", err, loc, page, d.g.logs())
	}
	asked := d.idp.LastAuthorize()
	if asked.Get("login_hint") != "BankID-app" || asked.Get("acr_values") != acrSubstantial+" "+acrHigh || asked.Get("code_challenge_method") != "S256" {
		t.Fatalf("authorization request %v: want the app's login_hint, the account acr values and PKCE", asked)
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`#next`, chromedp.ByID),
		chromedp.WaitVisible(`input[name=account]`, chromedp.ByQuery),
		chromedp.Click(`input[name=account]`, chromedp.ByQuery),
		chromedp.Click(`#confirm`, chromedp.ByID),
	); err != nil {
		t.Fatalf("accounts: %v\n%s", err, d.g.logs())
	}
	q := cb.wait(t)
	if q.Get("state") != "abc" || q.Get("tpp-session-id") != s.sid || q.Get("context") != "PRIVATE" {
		t.Fatalf("success redirect %v", q)
	}
	// What the TPP is sent back with holds neither the provider's code
	// nor any token (a JWT's header starts eyJ).
	if q.Has("code") || q.Has("id_token") {
		t.Fatalf("success redirect %v: the provider's code or token reaches the TPP", q)
	}
	for k, vs := range q {
		for _, v := range vs {
			if strings.Contains(v, "eyJ") {
				t.Fatalf("success redirect %s=%q: a token reaches the TPP", k, v)
			}
		}
	}
	s.psuID = q.Get("psu-id")
	got := s.call("GET", "/v1/accounts", true)
	var list struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) != 1 {
		t.Fatalf("accounts after SCA: %d %s", got.status, got.body)
	}
	for _, secret := range []string{"id_token", "obgw-secret", "eyJ"} {
		if strings.Contains(d.g.logs(), secret) {
			t.Fatalf("the gateway's log holds %q", secret)
		}
		// Split, the backend service ran the login: its output too.
		if d.backend != nil && strings.Contains(d.backend.logs(), secret) {
			t.Fatalf("the backend service's log holds %q", secret)
		}
	}
}

// psuAgent is the PSU's browser over plain HTTP (cookie jar), for the
// paths a test must alter (a replayed callback, a tampered request): it
// follows redirects within the gateway and the provider and stops at the
// TPP, recording every URL it was sent to.
type psuAgent struct {
	t       *testing.T
	d       *idpDeployment
	c       *http.Client
	visited []string
	// stopAtCallback stops before obgw's callback (to deliver it later).
	stopAtCallback bool
}

func newPSUAgent(t *testing.T, d *idpDeployment) *psuAgent {
	a := &psuAgent{t: t, d: d}
	jar, _ := cookiejar.New(nil)
	a.c = client(nil)
	a.c.Jar = jar
	a.c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		a.visited = append(a.visited, req.URL.String())
		idpHost := strings.TrimPrefix(d.idp.Issuer(), "http://")
		switch {
		case a.stopAtCallback && strings.HasPrefix(req.URL.String(), d.callback):
			return http.ErrUseLastResponse
		case req.URL.Host == d.g.addr:
			return nil
		case req.URL.Host == idpHost:
			return nil
		}
		return http.ErrUseLastResponse
	}
	return a
}

func (a *psuAgent) do(req *http.Request) (*http.Response, string) {
	a.t.Helper()
	resp, err := a.c.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func (a *psuAgent) get(u string) (*http.Response, string) {
	return a.do(browserRequest(a.t, http.MethodGet, u, nil))
}

func (a *psuAgent) post(u string, form url.Values) (*http.Response, string) {
	return a.do(browserRequest(a.t, http.MethodPost, u, form))
}

var idpRequestRe = regexp.MustCompile(`name="authRequestID" value="([^"]+)"`)

// startLogin opens the SCA link and presses "Log in": it returns the
// flow's page URL and the provider's authorization URL it was sent to.
func (a *psuAgent) startLogin(link string) (pageURL, authURL string) {
	a.t.Helper()
	resp, page := a.get(link)
	m := csrfRe.FindStringSubmatch(page)
	if resp.StatusCode != 200 || m == nil || !strings.Contains(page, `id="login"`) {
		a.t.Fatalf("SCA page: %d %s", resp.StatusCode, page)
	}
	pageURL = resp.Request.URL.String()
	return pageURL, a.toProvider(pageURL, m[1])
}

var continueRe = regexp.MustCompile(`href="([^"]+)" id="continue"`)

// toProvider presses "Log in" on the page at pageURL and returns the
// provider's authorization URL the answer moves the browser on to (a
// page, not a redirect: CSP form-action would hold a redirect).
func (a *psuAgent) toProvider(pageURL, csrf string) string {
	a.t.Helper()
	resp, body := a.post(pageURL, url.Values{"step": {"login"}, "csrf": {csrf}})
	m := continueRe.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil || !strings.HasPrefix(html.UnescapeString(m[1]), a.d.idp.Issuer()) {
		a.t.Fatalf("log in: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	u, _ := url.Parse(html.UnescapeString(m[1]))
	if q := u.Query(); q.Get("prompt") != "login" || q.Get("max_age") != "0" {
		a.t.Fatalf("authorization request %v: want a fresh login (prompt=login, max_age=0)", q)
	}
	return u.String()
}

// logIn logs user in at the provider from authURL and returns obgw's last
// answer: the flow's continue page, or a redirect to the TPP.
func (a *psuAgent) logIn(authURL, user string) (*http.Response, string) {
	a.t.Helper()
	resp, page := a.get(authURL)
	m := idpRequestRe.FindStringSubmatch(page)
	if m == nil {
		a.t.Fatalf("no login form at the provider: %d %s", resp.StatusCode, page)
	}
	return a.post(a.d.idp.Issuer()+"/login", url.Values{"authRequestID": {m[1]}, "username": {user}, "password": {"test"}})
}

// confirmPrivate acts as the PSU in its private context and confirms on
// the flow's page at pageURL (choosing the first account offered, on a
// consent's page), and returns obgw's last answer.
func (a *psuAgent) confirmPrivate(pageURL string) (*http.Response, string) {
	a.t.Helper()
	var resp *http.Response
	var body string
	for _, form := range []url.Values{{"step": {"context"}, "context": {"PRIVATE"}}, {"step": {"confirm"}}} {
		_, page := a.get(pageURL)
		m := csrfRe.FindStringSubmatch(page)
		if m == nil {
			a.t.Fatalf("no form: %s", page)
		}
		form.Set("csrf", m[1])
		if acct := accountRe.FindStringSubmatch(page); acct != nil {
			form.Set("account", acct[1])
		}
		resp, body = a.post(pageURL, form)
	}
	return resp, body
}

// callbackVisited is the last callback URL the agent was sent to.
func (a *psuAgent) callbackVisited() string {
	for i := len(a.visited) - 1; i >= 0; i-- {
		if strings.HasPrefix(a.visited[i], a.d.callback) {
			return a.visited[i]
		}
	}
	a.t.Fatalf("never sent to the callback: %v", a.visited)
	return ""
}

// failedWith checks that resp redirects to the TPP with a failure whose
// message contains text.
func failedWith(t *testing.T, name string, resp *http.Response, body, text string) {
	t.Helper()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	q := loc.Query()
	if resp.StatusCode != http.StatusSeeOther || q.Get("system") != "obgw-sca" || q.Get("code") == "" || !strings.Contains(q.Get("message"), text) {
		t.Fatalf("%s: %d %s %s: want the failure redirect saying %q", name, resp.StatusCode, resp.Header.Get("Location"), body, text)
	}
}

// TestProductionSCARefusals: each way the provider's answer can fail to
// authenticate this PSU for this flow ends the flow with the failure
// redirect; a callback from another browser changes nothing; a payment
// needs the stricter acr.
func TestProductionSCARefusals(t *testing.T) {
	d := startWithIdP(t, "sqlite", false)
	cb := newTLSCallback(t)
	redirect := tlsCallbackURI(cb)
	tpp := func() *tppSession {
		return &tppSession{t: t, g: d.g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	}

	t.Run("replayed callback", func(t *testing.T) {
		a := newPSUAgent(t, d)
		pageURL, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		resp, page := a.logIn(authURL, sandbox.KariNumber)
		if resp.StatusCode != 200 || !strings.Contains(page, "logged in") {
			t.Fatalf("after the login: %d %s", resp.StatusCode, page)
		}
		if _, page := a.get(pageURL); !strings.Contains(page, `id="private"`) {
			t.Fatalf("the flow after the login: %s", page)
		}
		// The TPP (or anyone holding the callback URL) without the PSU's
		// browser: refused, and the PSU's flow goes on.
		stranger := newPSUAgent(t, d)
		resp, page = stranger.get(a.callbackVisited())
		if resp.StatusCode != http.StatusForbidden || strings.Contains(page, "Kari") {
			t.Fatalf("the callback in another browser: %d %s", resp.StatusCode, page)
		}
		if _, page := a.get(pageURL); !strings.Contains(page, `id="private"`) {
			t.Fatalf("the flow after a stranger's callback: %s", page)
		}
		// The same browser replaying the provider's answer.
		resp, page = a.get(a.callbackVisited())
		failedWith(t, "replayed callback", resp, page, "used already")
	})

	// (issue 32, 5) After the flow ended, the browser that logged in
	// replaying the provider's answer gets the redirect the flow ended
	// with again (its outcome, shown once more: nothing is authorised
	// twice, the code is not exchanged again); another browser gets 410.
	t.Run("callback replayed after the flow ended", func(t *testing.T) {
		a := newPSUAgent(t, d)
		pageURL, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		a.logIn(authURL, sandbox.KariNumber)
		last, _ := a.confirmPrivate(pageURL)
		ended := last.Header.Get("Location")
		if last.StatusCode != http.StatusSeeOther || !strings.Contains(ended, "psu-id=") {
			t.Fatalf("the flow's end: %d %s", last.StatusCode, ended)
		}
		if resp, _ := a.get(a.callbackVisited()); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != ended {
			t.Fatalf("the callback replayed: %d %s, want the redirect the flow ended with, %s", resp.StatusCode, resp.Header.Get("Location"), ended)
		}
		if resp, page := newPSUAgent(t, d).get(a.callbackVisited()); resp.StatusCode != http.StatusGone || strings.Contains(page, "psu-id") {
			t.Fatalf("the callback in another browser after the end: %d %s", resp.StatusCode, page)
		}
	})

	t.Run("tampered nonce", func(t *testing.T) {
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		u, _ := url.Parse(authURL)
		q := u.Query()
		q.Set("nonce", "attacker-chosen-nonce")
		u.RawQuery = q.Encode()
		resp, page := a.logIn(u.String(), sandbox.KariNumber)
		failedWith(t, "tampered nonce", resp, page, "could not be verified")
	})

	t.Run("another client", func(t *testing.T) {
		// The authorization request altered to another client of the
		// provider: its code is not obgw's to exchange.
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		u, _ := url.Parse(authURL)
		q := u.Query()
		q.Set("client_id", "other")
		u.RawQuery = q.Encode()
		resp, page := a.logIn(u.String(), sandbox.KariNumber)
		failedWith(t, "another client's code", resp, page, "could not be verified")
	})

	t.Run("expired token", func(t *testing.T) {
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		d.idp.SetClockOffset(-2 * time.Hour)
		defer d.idp.SetClockOffset(0)
		resp, page := a.logIn(authURL, sandbox.KariNumber)
		failedWith(t, "expired token", resp, page, "could not be verified")
	})

	// The provider's key vouches for an ID token that names another
	// provider, or was issued to another client (testidp re-signs op's
	// token with those claims).
	for _, c := range []struct {
		name string
		set  func()
	}{
		{"another issuer", func() { d.idp.SetIDTokenIssuer("https://other-idp.bank.example") }},
		{"another audience", func() { d.idp.SetIDTokenAudience("other") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newPSUAgent(t, d)
			_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
			c.set()
			defer d.idp.SetIDTokenIssuer("")
			defer d.idp.SetIDTokenAudience()
			resp, page := a.logIn(authURL, sandbox.KariNumber)
			failedWith(t, c.name, resp, page, "could not be verified")
			loc, _ := url.Parse(resp.Header.Get("Location"))
			if q := loc.Query(); q.Get("status") != "401" || q.Get("code") != "CONSENT_INVALID" || q.Get("state") != "abc" {
				t.Fatalf("%s: failure redirect %v, want status 401, CONSENT_INVALID and the TPP's state", c.name, q)
			}
		})
	}

	t.Run("unknown customer", func(t *testing.T) {
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		resp, page := a.logIn(authURL, perNumber)
		failedWith(t, "a PSU the bank does not know", resp, page, "not a customer")
	})

	t.Run("payment needs the stricter acr", func(t *testing.T) {
		// Ola logs in with substantial: enough for account access, not
		// for approving a payment.
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, transferBody("12031020016", "12031010010"), false))
		if asked, _ := url.Parse(authURL); asked.Query().Get("acr_values") != acrHigh {
			t.Fatalf("payment authorization request %v: want acr_values %s", asked, acrHigh)
		}
		resp, page := a.logIn(authURL, sandbox.OlaNumber)
		failedWith(t, "payment with substantial", resp, page, "could not be verified")

		// Kari (high) approves hers.
		s := tpp()
		a = newPSUAgent(t, d)
		link, paymentID := d.startFlowFor(t, s, redirect, transferBody("12031010010", "12031020016"), false)
		pageURL, authURL := a.startLogin(link)
		if resp, page := a.logIn(authURL, sandbox.KariNumber); resp.StatusCode != 200 {
			t.Fatalf("Kari's payment login: %d %s", resp.StatusCode, page)
		}
		resp, last := a.confirmPrivate(pageURL)
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("psu-id") == "" {
			t.Fatalf("Kari's payment: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), last)
		}
		// The TPP reads it authorised: due now, so accepted (ACTC), not
		// settled before a batch run (backend/pis/status.go).
		s.psuID = loc.Query().Get("psu-id")
		got := s.call("GET", "/v1/payments/domestic-norway-credit-transfers/"+paymentID+"/status", true)
		var status struct {
			TransactionStatus string `json:"transactionStatus"`
		}
		if got.status != 200 || json.Unmarshal(got.body, &status) != nil || status.TransactionStatus != "ACTC" {
			t.Fatalf("Kari's payment after her approval: %d %s, want ACTC", got.status, got.body)
		}
	})

	t.Run("PSU's page of consents", func(t *testing.T) {
		// Kari gives a consent, then logs in on the page of her consents
		// and revokes it; the TPP's next read is refused.
		s := tpp()
		a := newPSUAgent(t, d)
		pageURL, authURL := a.startLogin(d.startFlow(t, s, redirect, nil, false))
		a.logIn(authURL, sandbox.KariNumber)
		last, _ := a.confirmPrivate(pageURL)
		loc, _ := url.Parse(last.Header.Get("Location"))
		s.psuID = loc.Query().Get("psu-id")
		if got := s.call("GET", "/v1/accounts", true); got.status != 200 {
			t.Fatalf("accounts under the consent: %d %s", got.status, got.body)
		}

		p := newPSUAgent(t, d)
		resp, page := p.get("https://" + d.g.addr + "/v1/psu/consents")
		m := csrfRe.FindStringSubmatch(page)
		if resp.StatusCode != 200 || m == nil || !strings.Contains(page, `id="login"`) || strings.Contains(page, "customerNumber") {
			t.Fatalf("the page of consents: %d %s", resp.StatusCode, page)
		}
		authURL = p.toProvider("https://"+d.g.addr+"/v1/psu/consents", m[1])
		resp, page = p.logIn(authURL, sandbox.KariNumber)
		href := continueRe.FindStringSubmatch(page)
		if resp.StatusCode != 200 || href == nil || !strings.HasPrefix(href[1], "/v1/psu/consents/") {
			t.Fatalf("after the login: %d %s", resp.StatusCode, page)
		}
		mine := "https://" + d.g.addr + html.UnescapeString(href[1])
		_, page = p.get(mine)
		revoke := regexp.MustCompile(`value="([^"]+)"><button type="submit" name="step" value="revoke"`).FindStringSubmatch(page)
		m = csrfRe.FindStringSubmatch(page)
		if revoke == nil || m == nil || !strings.Contains(page, "Kari") {
			t.Fatalf("Kari's consents: %s", page)
		}
		if resp, page := p.post(mine, url.Values{"step": {"revoke"}, "csrf": {m[1]}, "consentId": {revoke[1]}}); resp.StatusCode != 200 || !strings.Contains(page, "revokedByPsu") {
			t.Fatalf("revoke: %d %s", resp.StatusCode, page)
		}
		if got := s.call("GET", "/v1/accounts", true); got.status != 401 {
			t.Fatalf("accounts after the PSU revoked: %d %s", got.status, got.body)
		}
		// Another browser with the page's address sees nothing.
		if resp, page := newPSUAgent(t, d).get(mine); resp.StatusCode != 404 || strings.Contains(page, "Kari") {
			t.Fatalf("the page of consents in another browser: %d %s", resp.StatusCode, page)
		}
	})

	t.Run("provider down", func(t *testing.T) {
		// The provider fails the code exchange: the PSU gets a page that
		// says so, with the way back to the TPP, which is the failure
		// redirect.
		a := newPSUAgent(t, d)
		_, authURL := a.startLogin(d.startFlow(t, tpp(), redirect, nil, false))
		a.stopAtCallback = true
		resp, page := a.logIn(authURL, sandbox.KariNumber)
		if !strings.HasPrefix(resp.Header.Get("Location"), d.callback) {
			t.Fatalf("the provider's answer: %d %v %s", resp.StatusCode, resp.Header, page)
		}
		d.idp.SetDown(true)
		defer d.idp.SetDown(false)
		resp, page = a.get(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "unavailable") {
			t.Fatalf("callback while the provider is down: %d %s", resp.StatusCode, page)
		}
		back := regexp.MustCompile(`href="([^"]+)" id="back"`).FindStringSubmatch(page)
		if back == nil {
			t.Fatalf("the outage page has no way back to the TPP: %s", page)
		}
		u, _ := url.Parse(html.UnescapeString(back[1]))
		if q := u.Query(); q.Get("code") != "SERVICE_UNAVAILABLE" || q.Get("status") != "503" || q.Get("state") != "abc" ||
			!strings.HasPrefix(u.String(), strings.TrimSuffix(redirect, "?state=abc")+"?") {
			t.Fatalf("the way back %s: want the failure redirect with SERVICE_UNAVAILABLE", u)
		}
	})
}

// TestProductionNeedsSCAProvider: a production deployment without an
// identity provider does not start, and says which setting is missing.
func TestProductionNeedsSCAProvider(t *testing.T) {
	cmd := exec.Command(binary, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot
	cmd.Env = append(append(os.Environ(), pkiEnv(true)...), "OBGW_ENV=", "OBGW_SCA_OIDC_ISSUER=", "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "OBGW_SCA_OIDC_ISSUER") || !strings.Contains(string(out), "sca_oidc") {
		t.Fatalf("production without a provider: %v\n%s", err, out)
	}
	// obgw's own line comes first, before Caddy's error that wraps it in
	// every module's path (issue 33, 4).
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			if !strings.Contains(line, `"msg":"obgw cannot start: production needs an SCA provider`) || strings.Contains(line, "loading") {
				t.Fatalf("the first error line is not obgw's own:\n%s", line)
			}
			break
		}
	}
	cmd = exec.Command(binary, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Dir = repoRoot
	cmd.Env = append(append(os.Environ(), pkiEnv(true)...), append(productionIdPEnv(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("production with a provider: %v\n%s", err, out)
	}
}

// productionIdPEnv configures a production deployment's identity provider
// for tests that never log in (discovery happens at the first login).
func productionIdPEnv() []string {
	return []string{"OBGW_ENV=", "OBGW_SCA_OIDC_ISSUER=https://idp.bank.invalid", "OBGW_SCA_OIDC_CLIENT_ID=obgw",
		"OBGW_SCA_OIDC_CLIENT_SECRET=unused"}
}

// TestSCAProviderCheckedAtStart: production discovers its identity
// provider when it starts and says so; a provider that cannot be
// discovered (here an issuer where nothing listens) is an error in the
// log naming sca_oidc's issuer, at start, not first at a PSU's login, and
// the gateway still serves.
func TestSCAProviderCheckedAtStart(t *testing.T) {
	waitFor := func(g *gateway, want ...string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			out, found := g.logs(), true
			for _, w := range want {
				found = found && strings.Contains(out, w)
			}
			if found {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the log lacks %q:\n%s", want, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	d := startWithIdP(t, "sqlite", false)
	waitFor(d.g, "identity provider discovered", d.idp.Issuer())
	// Once per start, however many routes use the provider (issue 33, 4).
	time.Sleep(500 * time.Millisecond)
	if n := strings.Count(d.g.logs(), "identity provider discovered"); n != 1 {
		t.Fatalf("the discovery is logged %d times", n)
	}

	nowhere := fmt.Sprintf("https://127.0.0.1:%d", freePort(t))
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_ENV=", "OBGW_SCA_OIDC_ISSUER="+nowhere,
		"OBGW_SCA_OIDC_CLIENT_ID=obgw", "OBGW_SCA_OIDC_CLIENT_SECRET=obgw-secret")...)
	const failed = "sca_oidc issuer: the identity provider cannot be discovered"
	waitFor(g, failed, nowhere)
	time.Sleep(500 * time.Millisecond)
	if n := strings.Count(g.logs(), failed); n != 1 {
		t.Fatalf("the failed discovery is logged %d times", n)
	}
	for _, line := range strings.Split(g.logs(), "\n") {
		if strings.Contains(line, failed) && !strings.Contains(line, `"level":"error"`) {
			t.Fatalf("not at error level: %s", line)
		}
	}
	if got := send(t, client(nil), newRequest(t, g, http.MethodGet, "/healthz", nil)); got.status != 200 {
		t.Fatalf("the gateway after the failed discovery: %d %s", got.status, got.body)
	}
}
