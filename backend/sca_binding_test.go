package backend

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// noFollow is p's client (same cookie jar) without following redirects, so
// a test sees the redirect and its Set-Cookie.
func (p *psu) noFollow() *http.Client {
	c := *p.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// flowCookie is the SCA cookie p's jar holds for the flow at href.
func (p *psu) flowCookie(href string) string {
	u, _ := url.Parse(p.h.srv.URL + href)
	for _, c := range p.client.Jar.Cookies(u) {
		if c.Name == sca.FlowCookie {
			return c.Value
		}
	}
	return ""
}

// getPage fetches u with client and returns the status and body.
func getPage(t *testing.T, client *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body(resp)
}

// post posts form to u with client and returns the response, body read.
func post(t *testing.T, client *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := client.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body(resp)
}

// psuData is what a page may show of the sandbox PSU Kari, her accounts,
// agreements and payments: none of it may reach another browser.
var psuData = []string{"Kari", "Nordmann", "Fjordfisk", "CORPORATE:", `name="account"`, "Brukskonto", "Sparekonto",
	"Mastercard", kariIBAN, olaIBAN, "Mottaker", "10.00", `name="csrf"`}

func wantNoPSUData(t *testing.T, what string, page string) {
	t.Helper()
	for _, s := range psuData {
		if strings.Contains(page, s) {
			t.Fatalf("%s shows %q of the PSU: %s", what, s, page)
		}
	}
}

// TestSCAFlowBoundToBrowser: once the PSU identified, the flow belongs to
// that browser. Another one holding the scaRedirect link (the TPP) and the
// cookie and form token it got before identification sees nothing of the
// PSU and can neither continue, widen, confirm nor cancel; the cookie and
// the form token change at identification; the flow keeps only a hash of
// the browser's secret.
func TestSCAFlowBoundToBrowser(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "bind"})
		href := scaLink(b)
		if status != 201 || href == "" {
			t.Fatalf("create consent: %d %v", status, b)
		}
		u := h.srv.URL + href
		p, x := h.browser(), h.browser() // the PSU, and the TPP with the same link
		page := p.open(href)
		xPage := x.open(href)
		xCSRF := csrfField.FindStringSubmatch(xPage)[1]
		before, beforeCSRF := p.flowCookie(href), csrfField.FindStringSubmatch(page)[1]
		if before == "" {
			t.Fatal("no SCA cookie before identification")
		}

		// Identification rotates the cookie (a new secret, with the
		// attributes that keep it to this browser and flow) and the token.
		resp, _ := post(t, p.noFollow(), u, url.Values{"csrf": {beforeCSRF}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("identify: %d", resp.StatusCode)
		}
		var set *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == sca.FlowCookie {
				set = c
			}
		}
		if set == nil || !set.HttpOnly || !set.Secure || set.SameSite != http.SameSiteStrictMode || set.Path != h.base+href || set.MaxAge <= 0 {
			t.Fatalf("identification's cookie %+v: want HttpOnly, Secure, SameSite=Strict, Path=%s", set, h.base+href)
		}
		secret := p.flowCookie(href)
		if secret == "" || secret == before || secret == xCSRF {
			t.Fatalf("cookie %q after identification, %q before: want a fresh secret", secret, before)
		}
		page = p.open(href)
		csrf := csrfField.FindStringSubmatch(page)[1]
		if csrf == beforeCSRF || csrf == xCSRF || csrf == secret {
			t.Fatal("the form token did not change at identification")
		}
		if !strings.Contains(page, "Kari Nordmann") {
			t.Fatalf("the PSU's own browser lost the flow: %s", page)
		}
		f, err := h.st.GetSCAFlow(ctx, path.Base(href))
		if err != nil {
			t.Fatal(err)
		}
		if f.SessionHash != hashHex(secret) || strings.Contains(f.SessionHash+f.CSRF+f.Outcome, secret) {
			t.Fatalf("stored flow %+v: want the secret's hash and never the secret", f)
		}

		// The other browser, and one without any cookie, see nothing.
		anon := h.srv.Client()
		for _, c := range []struct {
			name   string
			client *http.Client
		}{{"the other browser", x.client}, {"a browser without cookies", anon}} {
			status, got := getPage(t, c.client, u)
			if status != http.StatusForbidden {
				t.Fatalf("%s: GET %d %s, want 403", c.name, status, got)
			}
			wantNoPSUData(t, c.name, got)
			for _, token := range []string{xCSRF, csrf} {
				for _, form := range []url.Values{
					{"step": {"context"}, "context": {"PRIVATE"}},
					{"step": {"confirm"}},
					{"step": {"cancel"}},
					{"step": {"identify"}, "customerNumber": {sandbox.OlaNumber}},
				} {
					form.Set("csrf", token)
					resp, got := post(t, c.client, u, form)
					if resp.StatusCode != http.StatusForbidden {
						t.Fatalf("%s: POST %v: %d %s, want 403", c.name, form, resp.StatusCode, got)
					}
					wantNoPSUData(t, c.name+" posting "+form.Get("step"), got)
				}
			}
		}
		// A client holding only the cookie the PSU's browser had before
		// identifying gets nothing either, not even by identifying with
		// another number; the flow stays as it was.
		jar, _ := cookiejar.New(nil)
		pu, _ := url.Parse(u)
		jar.SetCookies(pu, []*http.Cookie{{Name: sca.FlowCookie, Value: before, Path: href}})
		old := &http.Client{Transport: h.srv.Client().Transport, Jar: jar}
		if status, got := getPage(t, old, u); status != http.StatusForbidden {
			t.Fatalf("the pre-identification cookie: GET %d", status)
		} else {
			wantNoPSUData(t, "the pre-identification cookie", got)
		}
		if resp, got := post(t, old, u, url.Values{"csrf": {beforeCSRF}, "step": {"identify"}, "customerNumber": {sandbox.OlaNumber}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("the pre-identification cookie identifying as another: %d %s", resp.StatusCode, got)
		} else {
			wantNoPSUData(t, "the pre-identification cookie identifying as another", got)
		}
		if g, _ := h.st.GetSCAFlow(ctx, path.Base(href)); g.State != store.FlowPending || g.SessionHash != f.SessionHash || g.CustomerID != f.CustomerID {
			t.Fatalf("flow %+v changed, want %+v", g, f)
		}

		// The PSU's browser posting a form from before identification (a
		// second click) is shown the page again, and nothing happens.
		if resp, _ := post(t, p.noFollow(), u, url.Values{"csrf": {beforeCSRF}, "step": {"cancel"}}); resp.StatusCode != http.StatusSeeOther || h.local(resp.Header.Get("Location")) != href {
			t.Fatalf("the pre-identification token: %d %q, want 303 to the page", resp.StatusCode, resp.Header.Get("Location"))
		}
		if f, _ := h.st.GetSCAFlow(ctx, path.Base(href)); f.State != store.FlowPending || f.Context != "" {
			t.Fatalf("refused posts changed the flow: %+v", f)
		}

		// At the accounts step the other browser cannot widen the consent.
		page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
		boxes := accountBox.FindAllStringSubmatch(page, -1)
		if len(boxes) < 2 {
			t.Fatalf("accounts page: %s", page)
		}
		status, got := getPage(t, x.client, u)
		if status != http.StatusForbidden {
			t.Fatalf("other browser at the accounts step: %d", status)
		}
		wantNoPSUData(t, "the accounts step in another browser", got)
		all := url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "step": {"confirm"}}
		for _, b := range boxes {
			all.Add("account", b[1])
		}
		if resp, _ := post(t, x.client, u, all); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("other browser widening the consent: %d", resp.StatusCode)
		}
		resp = p.submit(href, page, url.Values{"step": {"confirm"}, "account": {boxes[0][1]}})
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("psu-id") == "" {
			t.Fatalf("PSU confirm: %d %s", resp.StatusCode, loc)
		}
		k, err := h.st.GetConsent(ctx, path.Base(href))
		if err != nil || len(k.AccountIDs) != 1 || k.AccountIDs[0] != boxes[0][1] {
			t.Fatalf("consent %+v %v: want the one account the PSU chose", k, err)
		}
		// The finished flow does not replay its redirect to another browser.
		resp, got = post(t, x.noFollow(), u, url.Values{"csrf": {xCSRF}, "step": {"confirm"}})
		if resp.StatusCode != http.StatusGone || resp.Header.Get("Location") != "" || strings.Contains(got, "psu-id") {
			t.Fatalf("other browser after completion: %d %q %s", resp.StatusCode, resp.Header.Get("Location"), got)
		}
	})
}

// TestSCAIdentifyTwiceAtOnce: a browser that submits its identification
// several times at once (a double-click on a slow connection, where the
// browser keeps only the last response) is bound whichever submission won:
// every answer sets the same secret. Another browser racing it is not.
func TestSCAIdentifyTwiceAtOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "twice"})
		href := scaLink(b)
		u := h.srv.URL + href
		p, x := h.browser(), h.browser()
		form := url.Values{"csrf": {csrfField.FindStringSubmatch(p.open(href))[1]}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}}
		x.open(href)
		const posts = 4
		secrets := make([]string, posts+1)
		statuses := make([]int, posts+1)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range posts + 1 {
			c := p.noFollow()
			if i == posts {
				c = x.noFollow()
			}
			c.Jar = nil // every post carries the cookie from before: none sees another's answer
			cookie := (&psu{h: h, client: p.client}).flowCookie(href)
			if i == posts {
				cookie = x.flowCookie(href)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.AddCookie(&http.Cookie{Name: sca.FlowCookie, Value: cookie})
				<-start
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				statuses[i] = resp.StatusCode
				for _, k := range resp.Cookies() {
					if k.Name == sca.FlowCookie {
						secrets[i] = k.Value
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		f, err := h.st.GetSCAFlow(context.Background(), path.Base(href))
		if err != nil {
			t.Fatal(err)
		}
		// Either the PSU's browser won (all its posts get its secret, the
		// other browser gets none), or the other one did (then none of the
		// PSU's posts got a secret).
		winners := map[string]bool{}
		for i, sec := range secrets {
			if sec != "" {
				if statuses[i] != http.StatusSeeOther || hashHex(sec) != f.SessionHash {
					t.Fatalf("post %d: %d, secret that is not the flow's", i, statuses[i])
				}
				winners[sec] = true
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%d different secrets handed out (statuses %v), want exactly 1", len(winners), statuses)
		}
		if secrets[posts] == "" {
			for i := range posts {
				if secrets[i] == "" {
					t.Fatalf("PSU's post %d: %d without the binding, though the PSU's browser won", i, statuses[i])
				}
			}
		}
	})
}

// TestSCAPaymentSummaryBound: the payment the PSU approves is not shown
// to another browser, and it cannot approve it.
func TestSCAPaymentSummaryBound(t *testing.T) {
	h := newHarness(t, "sqlite")
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "pay", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
	id, href := b["paymentId"].(string), scaLink(b)
	p, x := h.browser(), h.browser()
	page := p.open(href)
	xCSRF := csrfField.FindStringSubmatch(x.open(href))[1]
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
	page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
	if !strings.Contains(page, "Mottaker AS") {
		t.Fatalf("the PSU does not see the payment: %s", page)
	}
	status, got := getPage(t, x.client, h.srv.URL+href)
	if status != http.StatusForbidden {
		t.Fatalf("other browser: %d", status)
	}
	wantNoPSUData(t, "the payment step in another browser", got)
	if resp, _ := post(t, x.noFollow(), h.srv.URL+href, url.Values{"csrf": {xCSRF}, "step": {"confirm"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("other browser approving: %d", resp.StatusCode)
	}
	if pay, _ := h.st.GetPayment(context.Background(), id); pay.Status != pis.StatusReceived {
		t.Fatalf("payment %s after the other browser's post, want %s", pay.Status, pis.StatusReceived)
	}
}

// TestSCAIdentifyAttemptsLimited: a flow allows sca.MaxIdentifyAttempts
// identification numbers; the last wrong one ends the flow with the failure
// redirect, also when the guesses come all at once.
func TestSCAIdentifyAttemptsLimited(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		// One at a time: wrong numbers get the form again, then the flow
		// ends; the right number comes too late.
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "guess"})
		href := scaLink(b)
		p := h.browser()
		page := p.open(href)
		for i := 1; i < sca.MaxIdentifyAttempts; i++ {
			resp := p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {"0000000000" + string(rune('0'+i))}})
			page = body(resp)
			if resp.StatusCode != 200 || !strings.Contains(page, `id="error"`) {
				t.Fatalf("wrong number %d: %d %s", i, resp.StatusCode, page)
			}
		}
		m := csrfField.FindStringSubmatch(page)
		resp, _ := post(t, p.noFollow(), h.srv.URL+href, url.Values{"csrf": {m[1]}, "step": {"identify"}, "customerNumber": {"00000000009"}})
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Host != "tpp.example.no" || loc.Query().Get("code") != "CONSENT_INVALID" || loc.Query().Get("status") != "401" {
			t.Fatalf("wrong number %d: %d %s, want the failure redirect", sca.MaxIdentifyAttempts, resp.StatusCode, loc)
		}
		resp, got := post(t, h.browser().noFollow(), h.srv.URL+href, url.Values{"csrf": {m[1]}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
		if resp.StatusCode == http.StatusOK || strings.Contains(got, "Kari") {
			t.Fatalf("the right number after the limit: %d %s", resp.StatusCode, got)
		}
		if f, _ := h.st.GetSCAFlow(ctx, path.Base(href)); f.State != store.FlowFailed || f.CustomerID != "" {
			t.Fatalf("flow %+v: want failed, nobody identified", f)
		}

		// All at once: 30 wrong numbers in parallel, then the right one.
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "guess2"})
		href = scaLink(b)
		p = h.browser()
		page = p.open(href)
		form := url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "step": {"identify"}, "customerNumber": {"00000000001"}}
		var wg sync.WaitGroup
		for range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := p.noFollow().PostForm(h.srv.URL+href, form)
				if err == nil {
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		form.Set("customerNumber", sandbox.KariNumber)
		resp, got = post(t, p.noFollow(), h.srv.URL+href, form)
		if strings.Contains(got, "Kari") || resp.Header.Get("Location") == href {
			t.Fatalf("the right number after 30 parallel guesses: %d %s", resp.StatusCode, got)
		}
		if f, _ := h.st.GetSCAFlow(ctx, path.Base(href)); f.State != store.FlowFailed || f.CustomerID != "" {
			t.Fatalf("flow %+v after parallel guesses: want failed, nobody identified", f)
		}
	})
}

// TestSCAFailureMessagesFixed: a failure redirect carries a fixed message
// for the PSU, never an error's text.
func TestSCAFailureMessagesFixed(t *testing.T) {
	h := newHarness(t, "sqlite")
	// Kari cannot pay from Ola's account.
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "m1", body: paymentBody("10.00", olaIBAN, kariIBAN, "")})
	q := h.authorise(scaLink(b), sandbox.KariNumber)
	want := "The payment could not be authorised: it is not from an account you may pay from"
	if q.Get("code") != "RESOURCE_UNKNOWN" || q.Get("message") != want {
		t.Fatalf("foreign debtor: %v, want message %q", q, want)
	}
	// The TPP cancels the payment while the PSU is on the page.
	_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "m2", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
	id, href := b["paymentId"].(string), scaLink(b)
	p := h.browser()
	page := p.open(href)
	page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
	page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
	if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/payments/" + pis.InstantProduct + "/" + id}); status != 204 {
		t.Fatalf("cancel: %d", status)
	}
	resp := p.submit(href, page, url.Values{"step": {"confirm"}})
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	want = "The payment could not be authorised: it is no longer awaiting authorisation"
	if loc.Query().Get("code") != "STATUS_INVALID" || loc.Query().Get("message") != want {
		t.Fatalf("cancelled payment: %s, want message %q", loc, want)
	}
	// The texts of pis's errNotPSUAccount and errPaymentState.
	for _, m := range []string{q.Get("message"), loc.Query().Get("message")} {
		if strings.Contains(m, "store:") || strings.Contains(m, "the debtor account is not one the PSU may pay from") || strings.Contains(m, "the payment is no longer awaiting authorisation") {
			t.Fatalf("message %q carries an error's text", m)
		}
	}
}

// TestSCAHSTS: every response of the SCA routes (pages, errors, redirects)
// sends Strict-Transport-Security; an expired flow sends the PSU back to
// the TPP-Redirect-URI with the failure parameters.
func TestSCAHSTS(t *testing.T) {
	h := newHarness(t, "sqlite")
	newFlow := func(sid string) string {
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: sid})
		return h.srv.URL + scaLink(b)
	}
	jar, _ := cookiejar.New(nil)
	psu := &http.Client{Transport: h.srv.Client().Transport, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	anon := &http.Client{Transport: h.srv.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	live, cancelled, expired := newFlow("h1"), newFlow("h2"), newFlow("h3")

	var checks []struct {
		name   string
		status int
		resp   *http.Response
	}
	check := func(name string, status int, resp *http.Response, err error) {
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		checks = append(checks, struct {
			name   string
			status int
			resp   *http.Response
		}{name, status, resp})
	}
	resp, err := psu.Get(live)
	check("page", 200, resp, err)
	resp, err = psu.PostForm(live, url.Values{"csrf": {"forged"}, "step": {"identify"}})
	check("forged post", 403, resp, err)
	resp, err = anon.Get(h.srv.URL + "/v1/sca/enc!!unknown")
	check("unknown flow", 404, resp, err)
	resp, err = anon.Get(h.srv.URL + "/v1/sca/" + strings.Repeat("x", 200))
	check("implausible flow id", 404, resp, err)
	resp, err = psu.Get(cancelled)
	check("second page", 200, resp, err)
	page := body(must(psu.Get(cancelled)))
	resp, err = psu.PostForm(cancelled, url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "step": {"cancel"}})
	check("cancel redirect", 303, resp, err)
	resp, err = anon.Get(cancelled)
	check("finished flow", 410, resp, err)
	// Identify on the live flow, then another browser is refused.
	page = body(must(psu.Get(live)))
	resp, err = psu.PostForm(live, url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
	check("identify redirect", 303, resp, err)
	resp, err = anon.Get(live)
	check("other browser", 403, resp, err)
	h.clk.add(sca.FlowLifetime + time.Minute)
	resp, err = anon.Get(expired)
	check("expired flow", 303, resp, err)
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	prod := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Sandbox: false, Now: h.clk.now}))
	defer prod.Close()
	resp, err = prod.Client().Get(prod.URL + strings.TrimPrefix(live, h.srv.URL))
	check("production", 503, resp, err)

	for _, c := range checks {
		if c.resp.StatusCode != c.status || c.resp.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
			t.Errorf("%s: %d, Strict-Transport-Security %q; want %d with max-age=31536000",
				c.name, c.resp.StatusCode, c.resp.Header.Get("Strict-Transport-Security"), c.status)
		}
	}
	loc, _ := url.Parse(checks[len(checks)-2].resp.Header.Get("Location"))
	if loc.Host != "tpp.example.no" || loc.Query().Get("state") != "xyz" || loc.Query().Get("code") != "CONSENT_INVALID" {
		t.Fatalf("expired flow redirect %s: want the TPP-Redirect-URI with the failure parameters", loc)
	}
}

func must(resp *http.Response, err error) *http.Response {
	if err != nil {
		panic(err)
	}
	return resp
}

// TestSCAIdentifyImplausibleNumber: a customer number no customer can have
// (NUL, invalid UTF-8, over-long) is a wrong number on every store, never
// a 503 (PostgreSQL refuses such text).
func TestSCAIdentifyImplausibleNumber(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "nul"})
		href := scaLink(b)
		p := h.browser()
		page := p.open(href)
		for _, number := range []string{"0101\x009912345", "\xff\xfe", strings.Repeat("1", 200)} {
			resp := p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {number}})
			page = body(resp)
			if resp.StatusCode != 200 || !strings.Contains(page, `id="error"`) {
				t.Fatalf("number %q: %d %s", number, resp.StatusCode, page)
			}
		}
	})
}

// hashHex is the SessionHash of a browser's secret, as the store model
// documents it: the SHA-256 of the secret, in hex.
func hashHex(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
