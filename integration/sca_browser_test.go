package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// chromium finds the browser the SCA page is tested in. CI installs
// Debian's chromium; a missing browser fails the test rather than skipping
// it, unless OBGW_SKIP_BROWSER=1.
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("OBGW_SKIP_BROWSER") == "1" {
		t.Skip("OBGW_SKIP_BROWSER=1")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH: install Debian's chromium (apt-get install chromium)")
	return ""
}

// tppCallback is the TPP's redirect endpoint: it records the query each
// redirect brings.
type tppCallback struct {
	srv  *httptest.Server
	got  chan url.Values
	path string
}

func newCallback(t *testing.T) *tppCallback {
	cb := &tppCallback{got: make(chan url.Values, 4), path: "/cb"}
	cb.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != cb.path {
			http.NotFound(w, r) // the browser also asks for /favicon.ico
			return
		}
		cb.got <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>TPP</title><p id=done>Back at the TPP</p>"))
	}))
	t.Cleanup(cb.srv.Close)
	return cb
}

func (cb *tppCallback) uri() string {
	// http is allowed for localhost in sandbox; the TPP's own query is kept.
	u, _ := url.Parse(cb.srv.URL)
	return "http://localhost:" + u.Port() + cb.path + "?state=abc"
}

func (cb *tppCallback) wait(t *testing.T) url.Values {
	t.Helper()
	select {
	case q := <-cb.got:
		return q
	case <-time.After(20 * time.Second):
		t.Fatal("the browser never came back to the TPP")
		return nil
	}
}

// browser starts a headless Chromium with the flags this machine needs.
//
// What Chromium loads is not checked against the OpenAPI document
// (contract_test.go): it goes over Chromium's own network stack, not the
// tests' client. The document does cover those pages (tag SCA pages:
// /v1/sca/s/{sealed}, /v1/sca/{flowId}, /v1/sca/callback,
// /v1/psu/consents), and every one of them is checked where a Go client
// walks the same flows as a browser does: psuBrowser, authoriseInBrowser
// and psuAgent, through client. Chromium is here for what only a browser
// shows (the page renders and works under its CSP, the real redirects);
// the TPP's calls of these tests go through client as everywhere.
func browser(t *testing.T) context.Context {
	t.Helper()
	// Chromium's helper processes may still write to the profile as the
	// browser exits: remove it after, without failing on leftovers.
	profile, err := os.MkdirTemp("", "obgw-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		// The gateway's certificate comes from the test TLS CA.
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.UserDataDir(profile),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel3)
	return ctx
}

// startConsent has the TPP create a consent and returns the SCA link.
func startConsent(t *testing.T, g *gateway, s *tppSession, redirect string) string {
	t.Helper()
	req := newRequest(t, g, http.MethodPost, "/v1/bank-offered-consents", nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("TPP-Redirect-URI", redirect)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, s.tpp).Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, s.c, req)
	var created struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil {
		t.Fatalf("create consent: %d %s", got.status, got.body)
	}
	return "https://" + g.addr + created.Links["scaRedirect"].Href
}

// TestSCAPageInChromium drives the SCA page in a real headless Chromium:
// national id, context, accounts, confirm, and the real redirect back to
// the TPP; then the TPP reads the consented accounts. Once the PSU has
// identified, the same link opened in another browser (its own cookies, as
// the TPP's would be) shows nothing of the PSU. A second run cancels and
// gets the failure redirect.
func TestSCAPageInChromium(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	cb := newCallback(t)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	link := startConsent(t, g, s, cb.uri())

	ctx := browser(t)
	var title string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#customerNumber`, chromedp.ByID),
		chromedp.Title(&title),
		chromedp.SendKeys(`#customerNumber`, sandbox.KariNumber, chromedp.ByID),
		chromedp.Click(`#next`, chromedp.ByID),
		chromedp.WaitVisible(`#private`, chromedp.ByID),
	); err != nil {
		t.Fatalf("SCA page: %v\n%s", err, g.logs())
	}
	// Another browser (a second Chromium, its own profile and cookies)
	// with the same link, after the PSU identified.
	other := browser(t)
	var otherText string
	if err := chromedp.Run(other,
		chromedp.Navigate(link),
		chromedp.Text(`body`, &otherText, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("the link in another browser: %v", err)
	}
	if !strings.Contains(otherText, "in progress in another browser") || strings.Contains(otherText, "Kari") {
		t.Fatalf("the link in another browser shows %q: want the in-another-browser notice and nothing of the PSU", otherText)
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`#next`, chromedp.ByID),
		chromedp.WaitVisible(`input[name=account]`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("SCA page after the other browser: %v\n%s", err, g.logs())
	}
	shot(t, ctx, "sca-accounts.png")
	if err := chromedp.Run(ctx,
		chromedp.Click(`input[name=account]`, chromedp.ByQuery), // the first account
		chromedp.Click(`#confirm`, chromedp.ByID),
	); err != nil {
		t.Fatalf("confirm: %v", err)
	}
	q := cb.wait(t)
	if q.Get("state") != "abc" || q.Get("tpp-session-id") != s.sid || q.Get("context") != "PRIVATE" {
		t.Fatalf("success redirect %v", q)
	}
	if _, err := uuid.Parse(q.Get("psu-id")); err != nil {
		t.Fatalf("psu-id %q", q.Get("psu-id"))
	}
	if title == "" {
		t.Fatal("the SCA page has no title")
	}
	s.psuID = q.Get("psu-id")
	got := s.call("GET", "/v1/accounts", true)
	var list struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &list) != nil || len(list.Accounts) != 1 {
		t.Fatalf("accounts after SCA: %d %s", got.status, got.body)
	}

	// Cancelling brings the PSU back with the failure parameters.
	s2 := &tppSession{t: t, g: g, c: s.c, tpp: "tpp", sid: uuid.NewString()}
	link = startConsent(t, g, s2, cb.uri())
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#cancel`, chromedp.ByID),
		chromedp.Click(`#cancel`, chromedp.ByID),
	); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	q = cb.wait(t)
	for _, k := range []string{"system", "status", "code", "message"} {
		if q.Get(k) == "" {
			t.Fatalf("failure redirect lacks %s: %v", k, q)
		}
	}
}

// shot saves a screenshot when OBGW_SCREENSHOTS names a directory, so a
// person can look at the page.
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("OBGW_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	_ = os.WriteFile(filepath.Join(dir, name), png, 0o644)
}
