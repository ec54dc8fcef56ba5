package backend

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/ais"
	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/store/storetest"
	"github.com/obgw/obgw/tppcontext"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testTPP is the TPP of the harness's calls unless they name another.
const testTPP = "PSDNO-FSA-987654321"

// harness is a backend over a real store, with a gateway stand-in that
// issues context tokens the way obgw_verify does.
type harness struct {
	t      *testing.T
	srv    *httptest.Server
	clk    *clock
	issuer *tppcontext.Issuer
	st     store.Store
	sealed bool   // srv was replaced by sealHarness's
	base   string // the base path srv serves under ("": none)
}

// storeKinds are the stores every backend test runs against: embedded
// SQLite, the real PostgreSQL (its own schema per test), and SQLite served
// under the base path /api-sandbox (underBase), where every link of every
// answer must carry it.
func storeKinds() []string { return []string{"sqlite", "postgres", "sqlite-base"} }

// testBasePath is the base path of the "sqlite-base" harness.
const testBasePath = "/api-sandbox"

func newHarness(t *testing.T, kind string) *harness {
	t.Helper()
	// The clock reads in Oslo, so that a test's dates (clk.now().Format)
	// are the bank's, also in the hour after midnight there, before
	// midnight in UTC.
	clk := &clock{t: time.Now().In(civildate.Oslo)}
	ctx := context.Background()
	var st store.Store
	var err error
	switch kind {
	case "sqlite", "sqlite-base":
		st, err = store.Open(ctx, filepath.Join(t.TempDir(), "obgw.db"), store.Options{Clock: clk.now})
	case "postgres":
		url, _ := storetest.Schema(t, "t_backend")
		st, err = store.Open(ctx, url, store.Options{Clock: clk.now})
	}
	if err != nil {
		t.Fatalf("opening %s store: %v", kind, err)
	}
	t.Cleanup(func() { st.Close() })
	// The default TPP's sandbox, as its first call would seed it.
	if err := sandbox.SeedFor(ctx, st, testTPP, clk.now()); err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{9}, 32)
	iss, _ := tppcontext.NewIssuer(key)
	ver, _ := tppcontext.NewVerifier(key)
	h := &harness{t: t, clk: clk, issuer: iss, st: st}
	var srv http.Handler = New(Config{Store: transitionGuard{Store: st, t: t}, Tokens: ver, Sandbox: true, Now: clk.now})
	if kind == "sqlite-base" {
		h.base = testBasePath
		srv = underBase(t, h.base, srv)
	}
	h.srv = newTestServer(t, srv)
	t.Cleanup(h.srv.Close)
	// Every request of the tests goes under the base path; the links
	// they read back are taken without it (local).
	h.srv.URL += h.base
	return h
}

// underBase serves h under base as the gateway does (uri strip_prefix,
// then WithBasePath), and fails the test for a request outside base (a
// link that lost it) and for an answer with a /v1/ link without it: a
// Location, a cookie path, a JSON href, an HTML action or href.
func underBase(t *testing.T, base string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, base)
		if !ok || !strings.HasPrefix(rest, "/v1/") {
			t.Errorf("%s %s: a request outside the base path %s", r.Method, r.URL.Path, base)
			http.NotFound(w, r)
			return
		}
		r2 := r.Clone(respond.WithBasePath(r.Context(), base))
		r2.URL.Path, r2.URL.RawPath = rest, strings.TrimPrefix(r.URL.RawPath, base)
		rec := &recordedResponse{w: w}
		h.ServeHTTP(rec, r2)
		if loc := rec.header().Get("Location"); strings.HasPrefix(loc, "/v1/") {
			t.Errorf("%s %s: Location %s without the base path", r.Method, r.URL.Path, loc)
		}
		for _, c := range rec.header()["Set-Cookie"] {
			if strings.Contains(c, "Path=/v1/") {
				t.Errorf("%s %s: cookie %s without the base path", r.Method, r.URL.Path, c)
			}
		}
		for _, link := range []string{`"href":"/v1/`, `action="/v1/`, `href="/v1/`, `url=/v1/`} {
			if bytes.Contains(rec.body.Bytes(), []byte(link)) {
				t.Errorf("%s %s: a link %s... without the base path in %s", r.Method, r.URL.Path, link, rec.body.Bytes())
			}
		}
	})
}

// local is href (a link an answer carries) without the harness's base
// path, for the tests that put it after h.srv.URL, which carries it.
func (h *harness) local(href string) string {
	if h.base != "" {
		if rest, ok := strings.CutPrefix(href, h.base); ok && strings.HasPrefix(rest, "/v1/") {
			return rest
		}
	}
	return href
}

// tppCall is one TPP request as it leaves the gateway.
type tppCall struct {
	tpp, method, path       string
	psuID, corporateID, sid string
	psuPresent              bool
	noToken                 bool
	body                    string
	requestID               string           // default: a fresh UUID
	srv                     *httptest.Server // default: the harness's
	header                  http.Header      // more headers
	// psuAbsent sends a payment initiation without PSU-IP-Address, which
	// a TPP sends with every initiation otherwise (the PSU initiates).
	psuAbsent bool
}

// initiation matches a payment initiation's path.
var initiation = regexp.MustCompile(`^/v1/(payments|periodic-payments|bulk-payments)/[^/]+$`)

func (h *harness) call(c tppCall) (int, map[string]any, http.Header) {
	h.t.Helper()
	var tppName string // the register's name of the default TPP
	if c.tpp == "" {
		c.tpp, tppName = testTPP, "Test TPP AS"
	}
	var rd io.Reader
	if c.body != "" {
		rd = strings.NewReader(c.body)
	}
	if c.srv == nil {
		c.srv = h.srv
	}
	if c.method == http.MethodPost && initiation.MatchString(c.path) && !strings.HasSuffix(c.path, "/fee-information") && !c.psuAbsent {
		c.psuPresent = true
	}
	req, _ := http.NewRequest(c.method, c.srv.URL+c.path, rd)
	rid := c.requestID
	if rid == "" {
		rid = uuid.NewString()
	}
	req.Header.Set("X-Request-ID", rid)
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=xyz")
	setTPPHeaders(req, c.body, h.clk.now())
	if c.psuPresent {
		req.Header.Set("PSU-IP-Address", "192.0.2.10")
	}
	if c.sid != "" {
		req.Header.Set("TPP-Session-ID", c.sid)
	}
	if c.psuID != "" {
		req.Header.Set("PSU-ID", c.psuID)
	}
	if c.corporateID != "" {
		req.Header.Set("PSU-Corporate-ID", c.corporateID)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if !c.noToken {
		tok, err := h.issuer.Issue(tppcontext.Context{TPP: c.tpp, TPPName: tppName, Roles: []string{"PSP_AI", "PSP_PI"}, RequestID: rid,
			Method: c.method, Path: strings.TrimPrefix(req.URL.Path, h.base),
			PSUID: c.psuID, PSUCorporateID: c.corporateID, PSUPresent: c.psuPresent}, h.clk.now())
		if err != nil {
			h.t.Fatal(err)
		}
		req.Header.Set(tppcontext.Header, tok)
	}
	resp, err := c.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if h.base != "" && c.srv == h.srv {
		// The tests compare and follow links without the base path.
		raw = bytes.ReplaceAll(raw, []byte(`"href":"`+h.base+`/v1/`), []byte(`"href":"/v1/`))
		if loc := resp.Header.Get("Location"); loc != "" {
			resp.Header.Set("Location", h.local(loc))
		}
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			h.t.Fatalf("%s %s: not JSON: %s", c.method, c.path, raw)
		}
	}
	return resp.StatusCode, body, resp.Header
}

// setTPPHeaders sets what a TPP sends besides, which the gateway checks
// and passes on, and the OpenAPI document (newTestServer) requires: Date
// and, with a body, Digest and Content-Type.
func setTPPHeaders(req *http.Request, body string, now time.Time) {
	req.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	if body != "" {
		sum := sha256.Sum256([]byte(body))
		req.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		req.Header.Set("Content-Type", "application/json")
	}
}

func errCode(body map[string]any) string {
	msgs, _ := body["tppMessages"].([]any)
	if len(msgs) != 1 {
		return ""
	}
	return msgs[0].(map[string]any)["code"].(string)
}

func scaLink(body map[string]any) string {
	links, _ := body["_links"].(map[string]any)
	l, _ := links["scaRedirect"].(map[string]any)
	href, _ := l["href"].(string)
	return href
}

// psu is a browser going through the SCA page.
type psu struct {
	h      *harness
	client *http.Client
}

func (h *harness) browser() *psu {
	jar, _ := cookiejar.New(nil)
	c := h.srv.Client()
	cl := &http.Client{Transport: c.Transport, Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if srv, _ := url.Parse(h.srv.URL); req.URL.Host != srv.Host {
			return http.ErrUseLastResponse // never follow to the TPP
		}
		return nil
	}}
	return &psu{h: h, client: cl}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// open loads the page and returns its HTML.
func (p *psu) open(href string) string {
	p.h.t.Helper()
	resp, err := p.client.Get(p.h.srv.URL + href)
	if err != nil {
		p.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		p.h.t.Fatalf("GET %s: %d %s", href, resp.StatusCode, b)
	}
	return string(b)
}

var formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// sandboxField is the sandbox's sealed link a PSU page's form carries.
var sandboxField = regexp.MustCompile(`name="sandbox" value="([^"]+)"`)

// psuLink is TPP tpp's link to its sandbox's PSU page of consents (GET
// /v1/sandbox/psu-consents).
func (h *harness) psuLink(tpp string) string {
	h.t.Helper()
	status, b, _ := h.call(tppCall{tpp: tpp, method: "GET", path: "/v1/sandbox/psu-consents"})
	links, _ := b["_links"].(map[string]any)
	link, _ := links["psuConsents"].(map[string]any)
	href, _ := link["href"].(string)
	if status != 200 || !strings.HasPrefix(href, sca.PSUBase+"?sandbox=") || b["validUntil"] == nil {
		h.t.Fatalf("the sandbox's link to the PSU page: %d %v", status, b)
	}
	return href
}

// submit posts form values with the page's CSRF token (and the sandbox's
// link it carries) to the page's form
// action, as a browser does (href when the page has none: the link it was
// opened at, whose flow page a sealed link redirects to); it returns the
// final response (the page after a same-site redirect, or the redirect to
// the TPP).
func (p *psu) submit(href, page string, form url.Values) *http.Response {
	p.h.t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		p.h.t.Fatalf("no csrf field in %s", page)
	}
	form.Set("csrf", m[1])
	if sb := sandboxField.FindStringSubmatch(page); sb != nil && !form.Has("sandbox") {
		form.Set("sandbox", html.UnescapeString(sb[1]))
	}
	if a := formAction.FindStringSubmatch(page); a != nil {
		href = p.h.local(html.UnescapeString(a[1]))
	}
	resp, err := p.client.PostForm(p.h.srv.URL+href, form)
	if err != nil {
		p.h.t.Fatal(err)
	}
	return resp
}

func body(resp *http.Response) string {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

var accountBox = regexp.MustCompile(`name="account" value="([^"]+)"`)

// consent runs a whole bank-offered consent for customer number, choosing
// the first n offered accounts (agreement: a corporate agreement's name).
func (h *harness) consent(tpp, sid, number, agreement string, n int) url.Values {
	h.t.Helper()
	status, b, _ := h.call(tppCall{tpp: tpp, method: "POST", path: "/v1/bank-offered-consents", sid: sid})
	if status != 201 || b["consentStatus"] != "received" || scaLink(b) == "" {
		h.t.Fatalf("create consent: %d %v", status, b)
	}
	href := scaLink(b)
	p := h.browser()
	page := p.open(href)
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {number}}))
	ctxValue := "PRIVATE"
	if agreement != "" {
		m := regexp.MustCompile(`value="(CORPORATE:[^"]+)" id="[^"]+"> On behalf of ` + regexp.QuoteMeta(agreement)).FindStringSubmatch(page)
		if m == nil {
			h.t.Fatalf("agreement %s not offered: %s", agreement, page)
		}
		ctxValue = m[1]
	}
	page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {ctxValue}}))
	boxes := accountBox.FindAllStringSubmatch(page, -1)
	if len(boxes) < n {
		h.t.Fatalf("%d accounts offered, want %d: %s", len(boxes), n, page)
	}
	form := url.Values{"step": {"confirm"}}
	for _, b := range boxes[:n] {
		form.Add("account", b[1])
	}
	resp := p.submit(href, page, form)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("confirm: %d", resp.StatusCode)
	}
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if loc.Host != "tpp.example.no" || loc.Query().Get("state") != "xyz" {
		h.t.Fatalf("redirect %s", loc)
	}
	return loc.Query()
}

func forEachStore(t *testing.T, f func(t *testing.T, h *harness)) {
	for _, kind := range storeKinds() {
		t.Run(kind, func(t *testing.T) { f(t, newHarness(t, kind)) })
	}
}

func TestConsentFlowAndAccountAccess(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 2)
		psuID := q.Get("psu-id")
		if _, err := uuid.Parse(psuID); err != nil || q.Get("tpp-session-id") != "s1" || q.Get("context") != "PRIVATE" || q.Has("psu-corporate-id") {
			t.Fatalf("redirect query %v", q)
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts?withBalance=true", psuID: psuID, sid: "s1", psuPresent: true})
		if status != 200 {
			t.Fatalf("accounts: %d %v", status, b)
		}
		accounts := b["accounts"].([]any)
		if len(accounts) != 2 {
			t.Fatalf("%d accounts", len(accounts))
		}
		first := accounts[0].(map[string]any)
		id := first["resourceId"].(string)
		if !strings.HasPrefix(id, "enc!!") || first["iban"] == "" || len(first["balances"].([]any)) == 0 {
			t.Fatalf("account %v", first)
		}
		amount := first["balances"].([]any)[0].(map[string]any)["balanceAmount"].(map[string]any)["amount"].(string)
		if !regexp.MustCompile(`^-?\d+\.\d\d$`).MatchString(amount) {
			t.Fatalf("amount %q not a string with 2 decimals", amount)
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts/" + id + "/transactions?bookingStatus=both", psuID: psuID, sid: "s1", psuPresent: true})
		if status != 200 {
			t.Fatalf("transactions: %d %v", status, b)
		}
		txs := b["transactions"].(map[string]any)
		booked := txs["booked"].([]any)
		if len(booked) == 0 || len(txs["pending"].([]any)) == 0 {
			t.Fatalf("transactions %v", txs)
		}
		txID := booked[0].(map[string]any)["transactionId"].(string)
		if status, _, _ := h.call(tppCall{method: "GET", path: "/v1/accounts/" + id + "/transactions/" + txID, psuID: psuID, sid: "s1", psuPresent: true}); status != 200 {
			t.Fatalf("transaction details: %d", status)
		}
		// Balances without the PSU present: the consent is enough.
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts/" + id + "/balances", psuID: psuID}); status != 200 {
			t.Fatalf("balances, PSU not present: %d %v", status, b)
		}
		// Another TPP with the same PSU-ID knows nothing.
		status, b, _ = h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "GET", path: "/v1/accounts", psuID: psuID, sid: "s1", psuPresent: true})
		if status != 401 || errCode(b) != "CONSENT_INVALID" || scaLink(b) == "" {
			t.Fatalf("other TPP: %d %v", status, b)
		}
		// An account of another customer is not in the consent.
		other, _ := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.OlaNumber)
		accs, _ := h.st.ListCustomerAccounts(context.Background(), other.ID)
		var foreign string
		for _, a := range accs {
			if a.Kind == store.KindAccount {
				foreign = a.ID
			}
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts/" + foreign + "/balances", psuID: psuID, sid: "s1", psuPresent: true})
		if status != 403 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("foreign account: %d %v", status, b)
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts/enc!!nope/balances", psuID: psuID, sid: "s1", psuPresent: true}); status != 404 {
			t.Fatalf("unknown account: %d %v", status, b)
		}
	})
}

func TestSessionTable(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 1)
		psu := q.Get("psu-id")
		ok := func(sid string) int {
			status, _, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, sid: sid, psuPresent: true})
			return status
		}
		if ok("s1") != 200 {
			t.Fatal("fresh session refused")
		}
		// A new session id before the old expires needs a new SCA.
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, sid: "s2", psuPresent: true})
		if status != 401 || errCode(b) != "CONSENT_INVALID" || scaLink(b) == "" {
			t.Fatalf("new session id: %d %v", status, b)
		}
		// Aborted: the old id stays valid.
		p := h.browser()
		href := scaLink(b)
		page := p.open(href)
		resp := p.submit(href, page, url.Values{"step": {"cancel"}})
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		fq := loc.Query()
		if resp.StatusCode != 303 || fq.Get("system") == "" || fq.Get("status") == "" || fq.Get("code") == "" || fq.Get("message") == "" {
			t.Fatalf("failure redirect %d %s", resp.StatusCode, loc)
		}
		if ok("s1") != 200 {
			t.Fatal("old session invalid after an aborted SCA")
		}
		// Completed: the old id becomes invalid, the new one works.
		h.consent("", "s3", sandbox.KariNumber, "", 1)
		if ok("s1") != 401 || ok("s3") != 200 {
			t.Fatalf("after a completed new SCA: s1 %d s3 %d", ok("s1"), ok("s3"))
		}
		// One hour later the session has expired, but the consent still
		// serves PSU-not-present calls.
		h.clk.add(sca.SessionLifetime + time.Minute)
		if ok("s3") != 401 {
			t.Fatal("session valid after an hour")
		}
		if status, _, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu}); status != 200 {
			t.Fatalf("PSU not present after session expiry: %d", status)
		}
		// After 180 days the consent has expired.
		h.clk.add(ais.ConsentLifetime)
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu})
		if status != 401 || errCode(b) != "CONSENT_EXPIRED" || scaLink(b) == "" {
			t.Fatalf("after 180 days: %d %v", status, b)
		}
		// Its expiry is computed on read: the GETs wrote nothing (issue
		// 30, 3), and the retention sweep stores it.
		ctx := context.Background()
		kari, _ := h.st.GetCustomerByNumber(ctx, testTPP, sandbox.KariNumber)
		stored := func() ([]store.Consent, map[string]int) {
			ks, err := h.st.ListConsents(ctx, "PSDNO-FSA-987654321", kari.ID)
			if err != nil || len(ks) == 0 {
				t.Fatal(len(ks), err)
			}
			n := map[string]int{}
			for _, k := range ks {
				n[k.Status]++
			}
			return ks, n
		}
		ks, n := stored()
		if n[store.ConsentValid] == 0 || n[store.ConsentExpired] != 0 {
			t.Fatalf("stored after the GETs of an expired consent: %v, want them still stored valid", n)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + ks[0].ID + "/status"}); b["consentStatus"] != "expired" {
			t.Fatalf("its status read %v", b)
		}
		if _, again := stored(); again[store.ConsentExpired] != 0 {
			t.Fatalf("stored after its status was read: %v", again)
		}
		swept, err := h.st.Sweep(ctx, h.clk.now(), store.DefaultRetention)
		if err != nil || swept.Expired != int64(n[store.ConsentValid]) {
			t.Fatalf("sweep: %+v %v, want %d marked expired", swept, err, n[store.ConsentValid])
		}
		if _, after := stored(); after[store.ConsentValid] != 0 || after[store.ConsentExpired] != n[store.ConsentValid] {
			t.Fatalf("stored after the sweep: %v", after)
		}
	})
}

func TestRevocationAndConsentResource(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/consents", sid: "s1"})
		id := b["consentId"].(string)
		if status != 201 {
			t.Fatalf("deprecated create: %d", status)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + id + "/status"}); b["consentStatus"] != "received" {
			t.Fatalf("pending status %v", b)
		}
		if status, _, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "GET", path: "/v1/bank-offered-consents/" + id}); status != 403 {
			t.Fatalf("other TPP reads consent: %d", status)
		}
		q := h.consent("", "s2", sandbox.OlaNumber, "", 1)
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id")})
		if status != 200 {
			t.Fatal(status, b)
		}
		// The PSU revokes at the bank: the TPP is told CONSENT_EXPIRED.
		ola, _ := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.OlaNumber)
		cs, _ := h.st.ListConsents(context.Background(), "PSDNO-FSA-987654321", ola.ID)
		if len(cs) != 1 {
			t.Fatalf("%d consents", len(cs))
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + cs[0].ID}); status != 200 || b["consentStatus"] != "valid" {
			t.Fatalf("consent: %d %v", status, b)
		}
		h.st.SetConsentStatus(context.Background(), cs[0].ID, store.ConsentRevokedByPSU)
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id")})
		if status != 401 || errCode(b) != "CONSENT_EXPIRED" {
			t.Fatalf("revoked: %d %v", status, b)
		}
		// The TPP deletes a consent: 204, then terminatedByTpp.
		h.consent("", "s3", sandbox.OlaNumber, "", 1)
		cs, _ = h.st.ListConsents(context.Background(), "PSDNO-FSA-987654321", ola.ID)
		var live string
		for _, k := range cs {
			if k.Status == store.ConsentValid {
				live = k.ID
			}
		}
		if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/bank-offered-consents/" + live}); status != 204 {
			t.Fatalf("delete: %d", status)
		}
		if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/bank-offered-consents/" + live}); status != 409 {
			t.Fatalf("second delete: %d", status)
		}
		if _, b, _ := h.call(tppCall{method: "GET", path: "/v1/bank-offered-consents/" + live + "/status"}); b["consentStatus"] != "terminatedByTpp" {
			t.Fatalf("after delete: %v", b)
		}
	})
}

func TestCorporateContext(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "Fjordfisk AS", 2)
		corp := q.Get("psu-corporate-id")
		if q.Get("context") != "CORPORATE" || corp == "" {
			t.Fatalf("redirect %v", q)
		}
		psu := q.Get("psu-id")
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, sid: "s1", psuPresent: true})
		if status != 400 || errCode(b) != "CORPORATE_ID_INVALID" {
			t.Fatalf("without PSU-Corporate-ID: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, corporateID: corp, sid: "s1", psuPresent: true})
		if status != 200 || len(b["accounts"].([]any)) != 2 {
			t.Fatalf("with PSU-Corporate-ID: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/agreements", psuID: psu, sid: "s1", psuPresent: true})
		ags, _ := b["agreements"].([]any)
		if status != 200 || len(ags) != 1 || ags[0].(map[string]any)["psuCorporateId"] != corp {
			t.Fatalf("agreements: %d %v", status, b)
		}
	})
}

func TestGatewayTokenRequired(t *testing.T) {
	h := newHarness(t, "sqlite")
	status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", noToken: true})
	if status != 401 || errCode(b) == "" {
		t.Fatalf("no token: %d %v", status, b)
	}
	// A token issued for another request id is refused.
	req, _ := http.NewRequest("GET", h.srv.URL+"/v1/accounts", nil)
	tok, _ := h.issuer.Issue(tppcontext.Context{TPP: "PSDNO-FSA-987654321", RequestID: uuid.NewString()}, h.clk.now())
	req.Header.Set(tppcontext.Header, tok)
	req.Header.Set("X-Request-ID", uuid.NewString())
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("token of another request: %d", resp.StatusCode)
	}
	// Unknown path and wrong method get Berlin Group errors.
	if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/nothing"}); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
		t.Fatalf("unknown path: %d %v", status, b)
	}
	// (issue 29, 9) with Allow naming the methods the resource takes.
	if status, b, hdr := h.call(tppCall{method: "PUT", path: "/v1/accounts"}); status != 405 || errCode(b) != "SERVICE_INVALID" || hdr.Get("Allow") != "GET, HEAD" {
		t.Fatalf("wrong method: %d %v, Allow %q", status, b, hdr.Get("Allow"))
	}
}

func TestSCAPageCSRF(t *testing.T) {
	h := newHarness(t, "sqlite")
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "s1"})
	href := scaLink(b)
	p := h.browser()
	page := p.open(href)
	// A forged post without the cookie (another browser) is refused.
	m := csrfField.FindStringSubmatch(page)
	resp, err := h.srv.Client().PostForm(h.srv.URL+href, url.Values{"csrf": {m[1]}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("post without cookie: %d", resp.StatusCode)
	}
	// A post with the cookie but a wrong token is refused.
	resp, _ = p.client.PostForm(h.srv.URL+href, url.Values{"csrf": {"x"}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("post with a wrong token: %d", resp.StatusCode)
	}
	// An unknown number re-shows the form with an error; markup is escaped.
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {"<script>x</script>"}}))
	if !strings.Contains(page, `id="error"`) || strings.Contains(page, "<script>") {
		t.Fatalf("unknown number page: %s", page)
	}
	// The HTML pages carry a strict CSP.
	r2, _ := p.client.Get(h.srv.URL + href)
	r2.Body.Close()
	if !strings.Contains(r2.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("CSP %q", r2.Header.Get("Content-Security-Policy"))
	}
}

func TestPISPOnlyUserJourney(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/user", sid: "p1", psuPresent: true})
		href := scaLink(b)
		if status != 401 || errCode(b) != "CONSENT_INVALID" || href == "" {
			t.Fatalf("before SCA: %d %v", status, b)
		}
		p := h.browser()
		page := p.open(href)
		page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.OlaNumber}}))
		page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
		if strings.Contains(page, `name="account"`) || !strings.Contains(page, `id="confirm"`) {
			t.Fatalf("PISP-only flow offers accounts: %s", page)
		}
		resp := p.submit(href, page, url.Values{"step": {"confirm"}})
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		psuID := loc.Query().Get("psu-id")
		if resp.StatusCode != 303 || psuID == "" || loc.Query().Get("tpp-session-id") != "p1" {
			t.Fatalf("redirect %d %s", resp.StatusCode, loc)
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/user", sid: "p1", psuID: psuID, psuPresent: true})
		if status != 200 || b["psuId"] != psuID || b["context"] != "PRIVATE" {
			t.Fatalf("after SCA: %d %v", status, b)
		}
		// SCA alone is no account consent.
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "p1", psuID: psuID, psuPresent: true})
		if status != 401 || errCode(b) != "CONSENT_INVALID" {
			t.Fatalf("accounts without consent: %d %v", status, b)
		}
	})
}

// TestWithBalanceNeedsThePSU: without the PSU present, withBalance is
// ignored, so the limited balances endpoint is the only way to balances.
func TestWithBalanceNeedsThePSU(t *testing.T) {
	h := newHarness(t, "sqlite")
	q := h.consent("", "s1", sandbox.KariNumber, "", 1)
	_, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts?withBalance=true", psuID: q.Get("psu-id")})
	if acc := b["accounts"].([]any)[0].(map[string]any); acc["balances"] != nil {
		t.Fatalf("balances served without the PSU: %v", acc)
	}
	_, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts?withBalance=true", psuID: q.Get("psu-id"), sid: "s1", psuPresent: true})
	if acc := b["accounts"].([]any)[0].(map[string]any); acc["balances"] == nil {
		t.Fatalf("no balances with the PSU present: %v", acc)
	}
}

// TestBackendTrustsOnlyVerifiedIdentities: a token whose certificate or
// signature check only reported a failure, or that lacks the route's role,
// is refused.
func TestBackendTrustsOnlyVerifiedIdentities(t *testing.T) {
	h := newHarness(t, "sqlite")
	for _, tc := range []struct {
		ctx  tppcontext.Context
		code string
	}{
		{tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, Unverified: []string{"signature"}, Method: "GET", Path: "/v1/accounts"}, "CERTIFICATE_INVALID"},
		{tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_PI"}, Method: "GET", Path: "/v1/accounts"}, "ROLE_INVALID"},
		// A token issued for another method or path is refused.
		{tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, Method: "DELETE", Path: "/v1/accounts"}, "CERTIFICATE_INVALID"},
		{tppcontext.Context{TPP: "PSDNO-FSA-987654321", Roles: []string{"PSP_AI"}, Method: "GET", Path: "/v1/card-accounts"}, "CERTIFICATE_INVALID"},
	} {
		rid := uuid.NewString()
		tc.ctx.RequestID = rid
		tok, _ := h.issuer.Issue(tc.ctx, h.clk.now())
		req, _ := http.NewRequest("GET", h.srv.URL+"/v1/accounts", nil)
		req.Header.Set("X-Request-ID", rid)
		req.Header.Set(tppcontext.Header, tok)
		resp, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(string(raw), tc.code) {
			t.Errorf("%+v: %d %s", tc.ctx, resp.StatusCode, raw)
		}
	}
}

// TestProductionHasNoMockSCA: identifying a PSU by customer number alone
// is the sandbox's mock; a production backend refuses the page.
func TestProductionHasNoMockSCA(t *testing.T) {
	h := newHarness(t, "sqlite")
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "s1"})
	href := scaLink(b)
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	prod := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Sandbox: false, Now: h.clk.now}))
	defer prod.Close()
	resp, err := prod.Client().Get(prod.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("production SCA page: %d", resp.StatusCode)
	}
}
