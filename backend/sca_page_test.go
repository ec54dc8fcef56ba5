package backend

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
)

// TestSCAPageSaysWhatIsApproved (issue 19): the SCA page of a payment, a
// basket or a cancellation says what is approved (amount, creditor, date)
// under a title that says so from its first step, the identify step, and
// on the next; only a consent's page asks for access to the accounts. The
// TPP is named as the register names it (stored flows and sealed links).
func TestSCAPageSaysWhatIsApproved(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		date := h.clk.now().AddDate(0, 0, 7).Format(time.DateOnly)
		link := func(status int, b map[string]any) string {
			t.Helper()
			if scaLink(b) == "" {
				t.Fatalf("no scaRedirect: %d %v", status, b)
			}
			return scaLink(b)
		}
		pay := func(amount, extra string) map[string]any {
			t.Helper()
			status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "w", body: paymentBody(amount, kariIBAN, olaIBAN, extra)})
			if status != 201 {
				t.Fatalf("payment: %d %v", status, b)
			}
			return b
		}
		for _, tc := range []struct {
			name    string
			start   func() string
			want    []string
			wantNot []string
		}{
			{"payment", func() string {
				return link(201, pay("250.00", `,"requestedExecutionDate":"`+date+`"`))
			}, []string{"<h1>Approve a payment</h1>", "Test TPP AS asks you to approve a payment", "NOK 250.00 to Mottaker AS (" + olaIBAN + ") from " + kariIBAN + ", " + date}, []string{"access to your accounts"}},
			{"basket", func() string {
				a, b := pay("5.00", ""), pay("7.00", "")
				status, body, _ := h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "w", psuID: basketPSU, psuPresent: true,
					body: `{"paymentIds":["` + a["paymentId"].(string) + `","` + b["paymentId"].(string) + `"]}`})
				return link(status, body)
			}, []string{"<h1>Approve payments</h1>", "asks you to approve these payments", "NOK 5.00 to Mottaker AS", "NOK 7.00 to Mottaker AS"}, []string{"access to your accounts"}},
			{"cancellation", func() string {
				_, self := h.authorisedPayment("", pis.StatusAccepted)
				status, b, _ := h.call(tppCall{method: "DELETE", path: self, sid: "c1"})
				return link(status, b)
			}, []string{"<h1>Cancel a payment</h1>", "asks to cancel a payment you approved", "NOK 42.00 to Mottaker AS"}, []string{"access to your accounts"}},
			{"consent", func() string {
				status, b, _ := h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "w"})
				return link(status, b)
			}, []string{"<h1>Authorise access</h1>", "Test TPP AS asks for access to your accounts"}, []string{`id="payments"`, "PSDNO-FSA"}},
			{"sealed link of a request without consent", func() string {
				status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "w", psuPresent: true})
				return link(status, b)
			}, []string{"Test TPP AS asks for access to your accounts"}, []string{"PSDNO-FSA"}},
			{"PSU-ID alone", func() string {
				status, b, _ := h.call(tppCall{method: "GET", path: "/v1/user", sid: "w", psuPresent: true})
				return link(status, b)
			}, []string{"asks to start payments that you then approve"}, []string{"access to your accounts", `id="payments"`}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				href := tc.start()
				p := h.browser()
				page := p.open(href)
				if !strings.Contains(page, `name="customerNumber"`) {
					t.Fatalf("first page is not the identify step: %s", page)
				}
				check := func(step, page string) {
					t.Helper()
					for _, w := range tc.want {
						if !strings.Contains(page, w) {
							t.Errorf("%s step lacks %q: %s", step, w, page)
						}
					}
					for _, w := range tc.wantNot {
						if strings.Contains(page, w) {
							t.Errorf("%s step says %q: %s", step, w, page)
						}
					}
				}
				check("identify", page)
				page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
				if !strings.Contains(page, `name="context"`) {
					t.Fatalf("second page is not the context step: %s", page)
				}
				check("context", page)
			})
		}
	})
}

// TestSandboxAppVariant (issue 29, 8): TPP-Redirect-Preferred: false (the
// TPP prefers the bank's app) gives the sandbox's SCA page the simulated
// app/biometric variant, as the contract asks (§3); without it, the
// plain page.
func TestSandboxAppVariant(t *testing.T) {
	h := newHarness(t, "sqlite")
	for _, tc := range []struct {
		preferred string
		app       bool
	}{{"false", true}, {"true", false}, {"", false}} {
		c := tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "app"}
		if tc.preferred != "" {
			c.header = http.Header{"Tpp-Redirect-Preferred": {tc.preferred}}
		}
		status, b, _ := h.call(c)
		if status != 201 {
			t.Fatalf("consent: %d %v", status, b)
		}
		p := h.browser()
		page := p.open(scaLink(b))
		if got := strings.Contains(page, `id="app"`); got != tc.app {
			t.Errorf("TPP-Redirect-Preferred %q: the app variant %v, want %v", tc.preferred, got, tc.app)
		}
		page = body(p.submit(scaLink(b), page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.KariNumber}}))
		page = body(p.submit(scaLink(b), page, url.Values{"step": {"context"}, "context": {"PRIVATE"}}))
		if got := strings.Contains(page, "fingerprint (simulated)"); got != tc.app {
			t.Errorf("TPP-Redirect-Preferred %q: the simulated approval %v, want %v", tc.preferred, got, tc.app)
		}
	}
}
