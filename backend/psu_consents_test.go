package backend

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/tppcontext"
)

var revokeButton = regexp.MustCompile(`name="consentId" value="([^"]+)"`)

// TestPSURevocationPage (issue 14, 9): the PSU identifies on the bank's
// page of consents, sees every consent it gave, and revokes one; in the
// sandbox it opens the page from the link of a TPP's sandbox, and sees the consents of that
// sandbox's customer only (issue 16: another TPP's Kari is another
// customer, whose page is apart); the TPP's next call under it gets 401 CONSENT_EXPIRED. Another
// browser holding the page's address sees nothing and can revoke nothing;
// a form without the page's token is refused; wrong numbers are limited.
func TestPSURevocationPage(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 1)
		h.consent("PSDNO-FSA-987654322", "s2", sandbox.KariNumber, "", 1)
		p := h.browser()
		page := p.open(h.psuLink(""))
		if strings.Contains(page, "Kari") {
			t.Fatalf("the page names the PSU before identification: %s", page)
		}
		// In the sandbox (issue 34, 5): the page opens only from its TPP's
		// link, not bare, not with a sandbox named in the form, not with
		// another kind of sealed text.
		bare, err := p.client.Get(h.srv.URL + sca.PSUBase)
		if err != nil {
			t.Fatal(err)
		}
		if bb := body(bare); bare.StatusCode != http.StatusForbidden || !strings.Contains(bb, "GET /v1/sandbox/psu-consents") {
			t.Fatalf("the page without a link: %d %s", bare.StatusCode, bb)
		}
		for _, named := range []string{testTPP, "x." + testTPP} {
			if nr := p.submit(sca.PSUBase, page, url.Values{"step": {"identify"}, "sandbox": {named}, "customerNumber": {sandbox.KariNumber}}); nr.StatusCode != http.StatusForbidden || strings.Contains(body(nr), "Kari") {
				t.Fatalf("a sandbox named in the form (%s): %d", named, nr.StatusCode)
			}
		}
		page = p.open(h.psuLink(""))
		resp := p.submit(sca.PSUBase, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
		page = body(resp)
		pageURL := h.local(resp.Request.URL.Path)
		if resp.StatusCode != 200 || !strings.Contains(page, "Kari Nordmann") ||
			!strings.Contains(page, "PSDNO-FSA-987654321") || strings.Contains(page, "PSDNO-FSA-987654322") {
			t.Fatalf("the PSU's page: %d %s", resp.StatusCode, page)
		}
		ids := revokeButton.FindAllStringSubmatch(page, -1)
		if len(ids) != 1 {
			t.Fatalf("%d revoke buttons, want 1: %s", len(ids), page)
		}
		// Kari of the other TPP's sandbox: that consent only.
		pb := h.browser()
		bpage := body(pb.submit(sca.PSUBase, pb.open(h.psuLink("PSDNO-FSA-987654322")), url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
		if !strings.Contains(bpage, "PSDNO-FSA-987654322") || strings.Contains(bpage, "PSDNO-FSA-987654321") || len(revokeButton.FindAllStringSubmatch(bpage, -1)) != 1 {
			t.Fatalf("the other sandbox's page: %s", bpage)
		}
		// Another browser at the same address: nothing of the PSU.
		other := h.browser()
		oresp, err := other.client.Get(h.srv.URL + pageURL)
		if err != nil {
			t.Fatal(err)
		}
		if ob := body(oresp); oresp.StatusCode != 404 || strings.Contains(ob, "Kari") || strings.Contains(ob, "PSDNO") {
			t.Fatalf("another browser: %d %s", oresp.StatusCode, ob)
		}
		// A form without the page's token.
		fresp, _ := post(t, p.noFollow(), h.srv.URL+pageURL, url.Values{"step": {"revoke"}, "consentId": {ids[0][1]}})
		if fresp.StatusCode != http.StatusForbidden {
			t.Fatalf("a revocation without the token: %d", fresp.StatusCode)
		}
		// Revoke the first TPP's consent.
		k, _ := h.st.ListConsents(context.Background(), "PSDNO-FSA-987654321", kariID(t, h))
		resp = p.submit(pageURL, page, url.Values{"step": {"revoke"}, "consentId": {k[0].ID}})
		page = body(resp)
		if resp.StatusCode != 200 || len(revokeButton.FindAllStringSubmatch(page, -1)) != 0 || !strings.Contains(page, "revokedByPsu") {
			t.Fatalf("after revoking: %d %s", resp.StatusCode, page)
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id")})
		if status != 401 || errCode(b) != "CONSENT_EXPIRED" {
			t.Fatalf("the TPP after the PSU revoked: %d %v", status, b)
		}
		// The page's flow is not an SCA flow.
		if r, err := h.srv.Client().Get(h.srv.URL + "/v1/sca/" + strings.TrimPrefix(pageURL, sca.PSUBase+"/")); err != nil || r.StatusCode != 404 {
			t.Fatalf("the page's id on the SCA route: %v %v", r.StatusCode, err)
		}
		// Wrong numbers: five, then refused (the client's guesses above
		// have come back by now).
		h.clk.add(15 * time.Minute)
		g := h.browser()
		gp := g.open(h.psuLink(""))
		for i := 0; i < 5; i++ {
			r := g.submit(sca.PSUBase, gp, url.Values{"step": {"identify"}, "customerNumber": {"0000000000" + string(rune('0'+i))}})
			gp = body(r)
			if r.StatusCode != 200 || !strings.Contains(gp, `id="error"`) {
				t.Fatalf("wrong number %d: %d %s", i+1, r.StatusCode, gp)
			}
		}
		r := g.submit(sca.PSUBase, gp, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}})
		if rb := body(r); r.StatusCode != http.StatusTooManyRequests || strings.Contains(rb, "Kari") {
			t.Fatalf("after 5 wrong numbers: %d %s", r.StatusCode, rb)
		}
	})
}

// TestPSURevocationPageProduction: without an SCA provider (production),
// the page answers 503 and stores nothing.
func TestPSURevocationPageProduction(t *testing.T) {
	h := newHarness(t, "sqlite")
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	prod := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Now: h.clk.now}))
	defer prod.Close()
	for _, m := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(m, prod.URL+sca.PSUBase, strings.NewReader("customerNumber="+sandbox.KariNumber))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := prod.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s in production: %d", m, resp.StatusCode)
		}
	}
}
