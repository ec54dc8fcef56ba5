package integration

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestSandboxThroughGateway: the mock-data operations are signed like every
// route but need no TPP-Redirect-URI; they exist only in sandbox.
func TestSandboxThroughGateway(t *testing.T) {
	for _, env := range []string{"sandbox", "production"} {
		t.Run(env, func(t *testing.T) {
			vars := append(databaseEnv(t, "sqlite"), "OBGW_ENV="+env)
			if env == "production" {
				vars = append(vars, productionIdPEnv()[1:]...)
			}
			g := startGateway(t, "Caddyfile", vars...)
			c := client(nil)
			req := newRequest(t, g, http.MethodPost, "/v1/sandbox/initialize", nil)
			req.Header.Del("TPP-Redirect-URI")
			if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			got := send(t, c, req)
			if env == "production" {
				if got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
					t.Fatalf("production: %d %s", got.status, got.body)
				}
				return
			}
			if got.status != 200 || !strings.Contains(string(got.body), `"customerNumber":"`+sandbox.KariNumber+`"`) {
				t.Fatalf("initialize: %d %s", got.status, got.body)
			}
			body := []byte(`{"customerNumber":"01019912345","name":"Test Testperson","type":"private"}`)
			req = newRequest(t, g, http.MethodPost, "/v1/sandbox/customers", body)
			req.Header.Del("TPP-Redirect-URI")
			if err := g.signer(t, "tpp").Sign(req, body); err != nil {
				t.Fatal(err)
			}
			if got := send(t, c, req); got.status != 201 || !strings.Contains(string(got.body), `"customerType":"PRIVATE"`) {
				t.Fatalf("create customer: %d %s", got.status, got.body)
			}
		})
	}
}

// TestPSUPageNeedsTheTPPsLink (issue 34, 5): in a sandbox, a client
// without a certificate cannot open the PSU's page of consents of a TPP's
// sandbox by naming it: the page opens only from the link its TPP gets
// (GET /v1/sandbox/psu-consents); with it, Kari identifies and sees the
// TPP's consent.
func TestPSUPageNeedsTheTPPsLink(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	consent := s.call("POST", "/v1/bank-offered-consents", true)
	var created struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if consent.status != 201 || json.Unmarshal(consent.body, &created) != nil {
		t.Fatalf("consent: %d %s", consent.status, consent.body)
	}
	psuBrowser(t, g, created.Links["scaRedirect"].Href, sandbox.KariNumber, 1)

	jar, _ := cookiejar.New(nil)
	c := client(nil)
	c.Jar = jar
	base := "https://" + g.addr
	read := func(r *http.Response) string { defer r.Body.Close(); b, _ := io.ReadAll(r.Body); return string(b) }
	do := func(req *http.Request) *http.Response {
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// A stranger: the bare page, and the sandbox named in a form.
	if resp := do(browserRequest(t, http.MethodGet, base+"/v1/psu/consents", nil)); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the page without the TPP's link: %d %s", resp.StatusCode, read(resp))
	} else {
		resp.Body.Close()
	}
	forged := do(browserRequest(t, http.MethodPost, base+"/v1/psu/consents", url.Values{"step": {"identify"},
		"sandbox": {"PSDNO-FSA-987654321"}, "customerNumber": {sandbox.KariNumber}, "csrf": {"x"}}))
	if page := read(forged); forged.StatusCode != http.StatusForbidden || strings.Contains(page, "Kari") {
		t.Fatalf("the sandbox named in the form: %d %s", forged.StatusCode, page)
	}
	// The TPP's link.
	req := newRequest(t, g, http.MethodGet, "/v1/sandbox/psu-consents", nil)
	req.Header.Del("TPP-Redirect-URI")
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, s.c, req)
	var link struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &link) != nil || !strings.HasPrefix(link.Links["psuConsents"].Href, "/v1/psu/consents?sandbox=") {
		t.Fatalf("the sandbox's link: %d %s", got.status, got.body)
	}
	page := read(do(browserRequest(t, http.MethodGet, base+link.Links["psuConsents"].Href, nil)))
	m, sb := csrfRe.FindStringSubmatch(page), regexp.MustCompile(`name="sandbox" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || sb == nil {
		t.Fatalf("the page from the link: %s", page)
	}
	resp := do(browserRequest(t, http.MethodPost, base+"/v1/psu/consents", url.Values{"step": {"identify"}, "csrf": {m[1]},
		"sandbox": {html.UnescapeString(sb[1])}, "customerNumber": {sandbox.KariNumber}}))
	if page := read(resp); resp.StatusCode != 200 || !strings.Contains(page, "Kari Nordmann") || !strings.Contains(page, "PSDNO-FSA-987654321") {
		t.Fatalf("Kari's page from the TPP's link: %d %s", resp.StatusCode, page)
	}
}

// TestPSUGuessesCountedAcrossInstances (issue 34, 5): 200 wrong numbers
// sent at once to the PSU's page, half to each of two gateways sharing
// one PostgreSQL database: 5 are looked up, every other is refused 429
// (before, each instance counted in its memory, after the look-up: 36 of
// 200 were checked).
func TestPSUGuessesCountedAcrossInstances(t *testing.T) {
	db := databaseEnv(t, "postgres")
	gs := []*gateway{startGateway(t, "Caddyfile", db...), startGateway(t, "Caddyfile", db...)}
	// The TPP's link, from the first; the page's form, from each.
	req := newRequest(t, gs[0], http.MethodGet, "/v1/sandbox/psu-consents", nil)
	req.Header.Del("TPP-Redirect-URI")
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, client(nil), req)
	var link struct {
		Links map[string]struct{ Href string } `json:"_links"`
	}
	if got.status != 200 || json.Unmarshal(got.body, &link) != nil {
		t.Fatalf("the sandbox's link: %d %s", got.status, got.body)
	}
	// Each guess carries the form's cookie itself (no jar: an answer's
	// fresh form cookie would refuse the guesses still in flight).
	type form struct {
		c      *http.Client
		base   string
		cookie *http.Cookie
		values url.Values
	}
	var forms []form
	for _, g := range gs {
		c := client(nil)
		base := "https://" + g.addr
		resp, err := c.Do(browserRequest(t, http.MethodGet, base+link.Links["psuConsents"].Href, nil))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m, sb := csrfRe.FindStringSubmatch(string(b)), regexp.MustCompile(`name="sandbox" value="([^"]+)"`).FindStringSubmatch(string(b))
		if resp.StatusCode != 200 || m == nil || sb == nil {
			t.Fatalf("the page: %d %s", resp.StatusCode, b)
		}
		var cookie *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == "obgw_psu_form" {
				cookie = &http.Cookie{Name: ck.Name, Value: ck.Value}
			}
		}
		if cookie == nil {
			t.Fatalf("the page set no form cookie: %v", resp.Header)
		}
		forms = append(forms, form{c, base, cookie, url.Values{"step": {"identify"}, "csrf": {m[1]}, "sandbox": {html.UnescapeString(sb[1])}}})
	}
	const guesses = 200
	statuses := make(chan int, guesses)
	var wg sync.WaitGroup
	for i := range guesses {
		f := forms[i%2]
		v := url.Values{}
		for k, vs := range f.values {
			v[k] = vs
		}
		v.Set("customerNumber", fmt.Sprintf("990000%05d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := browserRequest(t, http.MethodPost, f.base+"/v1/psu/consents", v)
			req.AddCookie(f.cookie)
			resp, err := f.c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && !strings.Contains(string(b), "Unknown identification number") {
				t.Errorf("a wrong number answered 200 without saying so: %s", b)
			}
			statuses <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	checked, refused := 0, 0
	for s := range statuses {
		switch s {
		case 200:
			checked++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Errorf("a guess answered %d", s)
		}
	}
	if checked != 5 || refused != guesses-5 {
		t.Fatalf("%d of %d parallel wrong numbers checked, %d refused; want 5 checked", checked, guesses, refused)
	}
}

// TestSandboxResetsThrottledThroughGateway (issue 34, 5): a TPP looping
// resets of its sandbox, 8 at once: 2 are done, 6 refused 429
// ACCESS_EXCEEDED with Retry-After, and another TPP's consent is created
// meanwhile.
func TestSandboxResetsThrottledThroughGateway(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	c := client(nil)
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 8 {
		req := newRequest(t, g, http.MethodPost, "/v1/sandbox/initialize", nil)
		req.Header.Del("TPP-Redirect-URI")
		if err := signer(t, "rsa3072").Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := send(t, c, req)
			if got.status == 429 && (got.err.code() != "ACCESS_EXCEEDED" || got.header.Get("Retry-After") != "20") {
				t.Errorf("a refused reset: %s %v", got.body, got.header)
			}
			mu.Lock()
			statuses[got.status]++
			mu.Unlock()
		}()
	}
	s := &tppSession{t: t, g: g, c: c, tpp: "tpp", sid: uuid.NewString()}
	if got := s.call("POST", "/v1/bank-offered-consents", true); got.status != 201 {
		t.Errorf("another TPP's consent during the resets: %d %s", got.status, got.body)
	}
	wg.Wait()
	if statuses[200] != 2 || statuses[429] != 6 {
		t.Fatalf("8 resets at once: %v, want 2 × 200 and 6 × 429", statuses)
	}
}
