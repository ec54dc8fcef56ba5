package backend

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// secondAgreement engages Kari in a second corporate agreement, Bergen
// Bakeri's, on one of its accounts with VIEW and REGISTER.
func secondAgreement(t *testing.T, h *harness) {
	t.Helper()
	ctx := context.Background()
	kari, err := h.st.GetCustomerByNumber(ctx, testTPP, sandbox.KariNumber)
	if err != nil {
		t.Fatal(err)
	}
	bakeri, err := h.st.GetCustomerByNumber(ctx, testTPP, sandbox.BakeriNumber)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := h.st.GetAccountByNumber(ctx, testTPP, "", "12032022003")
	if err != nil {
		accs, _ := h.st.ListCustomerAccounts(ctx, bakeri.ID)
		if len(accs) == 0 {
			t.Fatalf("Bergen Bakeri has no account: %v", err)
		}
		acc = &accs[0]
	}
	ag := &store.Agreement{OwnerID: bakeri.ID, Name: "Bakeri for Kari", Engagements: []store.Engagement{
		{CustomerID: kari.ID, AccountID: acc.ID, Roles: []string{"VIEW", "REGISTER"}},
	}}
	if err := h.st.CreateAgreement(ctx, ag); err != nil {
		t.Fatal(err)
	}
}

// corporateIDs returns the psuCorporateId of each of the PSU's agreements
// by name, from GET /v1/agreements.
func corporateIDs(t *testing.T, h *harness, psu, sid string) map[string]string {
	t.Helper()
	status, b, _ := h.call(tppCall{method: "GET", path: "/v1/agreements", psuID: psu, sid: sid, psuPresent: true})
	if status != 200 {
		t.Fatalf("agreements: %d %v", status, b)
	}
	out := map[string]string{}
	for _, a := range b["agreements"].([]any) {
		m := a.(map[string]any)
		out[m["name"].(string)] = m["psuCorporateId"].(string)
	}
	return out
}

// TestChoosingAnAgreementFromAgreements (issue 14, 2): a psuCorporateId
// chosen from GET /v1/agreements works for any agreement the PSU holds:
// served once consented under it, else 401 with a scaRedirect.
func TestChoosingAnAgreementFromAgreements(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		secondAgreement(t, h)
		q := h.consent("", "s1", sandbox.KariNumber, "Fjordfisk AS", 2)
		psu := q.Get("psu-id")
		ids := corporateIDs(t, h, psu, "s1")
		if len(ids) != 2 || ids["Fjordfisk AS"] != q.Get("psu-corporate-id") || ids["Bakeri for Kari"] == "" {
			t.Fatalf("agreements: %v", ids)
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, corporateID: ids["Bakeri for Kari"], sid: "s1", psuPresent: true})
		if status != 401 || errCode(b) != "CONSENT_INVALID" || scaLink(b) == "" {
			t.Fatalf("the second agreement before consenting under it: %d %v", status, b)
		}
		q2 := h.consent("", "s2", sandbox.KariNumber, "Bakeri for Kari", 1)
		if q2.Get("psu-corporate-id") != ids["Bakeri for Kari"] {
			t.Fatalf("redirect %v, want psu-corporate-id %s", q2, ids["Bakeri for Kari"])
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, corporateID: ids["Bakeri for Kari"], sid: "s2", psuPresent: true})
		if status != 200 || len(b["accounts"].([]any)) != 1 {
			t.Fatalf("the second agreement, consented: %d %v", status, b)
		}
		// An id that names no agreement of this PSU is refused, naming the header.
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, corporateID: "6f1c1b7e-0000-4000-8000-000000000000", sid: "s2", psuPresent: true})
		if status != 400 || errCode(b) != "CORPORATE_ID_INVALID" {
			t.Fatalf("an unknown PSU-Corporate-ID: %d %v", status, b)
		}
	})
}

// TestEveryValidConsentCounts (issue 14, 3): a newer corporate consent does
// not end the PSU's private one; each serves its own context and accounts.
func TestEveryValidConsentCounts(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 1)
		psu := q.Get("psu-id")
		qc := h.consent("", "s2", sandbox.KariNumber, "Fjordfisk AS", 2)
		if qc.Get("psu-id") != psu {
			t.Fatalf("PSU-ID changed: %v %v", q, qc)
		}
		// PSU not present: no session needed, only the consents.
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu})
		if status != 200 || len(b["accounts"].([]any)) != 1 {
			t.Fatalf("private context after a corporate consent: %d %v", status, b)
		}
		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu, corporateID: qc.Get("psu-corporate-id")})
		if status != 200 || len(b["accounts"].([]any)) != 2 {
			t.Fatalf("corporate context: %d %v", status, b)
		}
	})
}

// TestViewOnlyAccountsOffered (issue 14, 4): in a corporate context the SCA
// page offers the accounts the PSU may only view, for reading.
func TestViewOnlyAccountsOffered(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.OlaNumber, "Bergen Bakeri AS", 2)
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: q.Get("psu-id"), corporateID: q.Get("psu-corporate-id"), sid: "s1", psuPresent: true})
		if status != 200 || len(b["accounts"].([]any)) != 2 {
			t.Fatalf("accounts under Bergen Bakeri: %d %v", status, b)
		}
	})
}

// TestViewOnlyAccountRefusedForPayments (issue 14, 4): a payment from an
// account the PSU may only view under the agreement is refused with an
// outcome that says so, and stays unauthorised.
func TestViewOnlyAccountRefusedForPayments(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		bakeri, _ := h.st.GetCustomerByNumber(ctx, testTPP, sandbox.BakeriNumber)
		accs, _ := h.st.ListCustomerAccounts(ctx, bakeri.ID)
		var eur string
		for _, a := range accs {
			if a.Currency == "EUR" {
				eur = a.IBAN
			}
		}
		if eur == "" {
			t.Fatal("Bergen Bakeri has no EUR account")
		}
		payment := `{"instructedAmount":{"currency":"EUR","amount":"10.00"},"debtorAccount":{"iban":"` + eur +
			`"},"creditorAccount":{"iban":"DE89370400440532013000"},"creditorName":"Bäckerei GmbH"}`
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/sepa-credit-transfers", sid: "p1", body: payment})
		if status != 201 {
			t.Fatalf("create: %d %v", status, b)
		}
		id := b["paymentId"].(string)
		href := scaLink(b)
		p := h.browser()
		page := p.open(href)
		page = body(p.submit(href, page, url.Values{"step": {"identify"}, "customerNumber": {sandbox.OlaNumber}}))
		m := regexp.MustCompile(`value="(CORPORATE:[^"]+)" id="[^"]+"> On behalf of Bergen Bakeri AS`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("Bergen Bakeri not offered: %s", page)
		}
		page = body(p.submit(href, page, url.Values{"step": {"context"}, "context": {m[1]}}))
		resp := p.submit(href, page, url.Values{"step": {"confirm"}})
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if q := loc.Query(); q.Get("code") != "RESOURCE_UNKNOWN" || !strings.Contains(q.Get("message"), "view the account but not pay") {
			t.Fatalf("redirect %v", q)
		}
		if pay, _ := h.st.GetPayment(ctx, id); pay.Status != pis.StatusRejected {
			t.Fatalf("payment %s, want RJCT", pay.Status)
		}
	})
}

// TestRevokedPrivateBeforeCorporateHint (issue 29, 3): a PSU whose private
// consent was revoked, and who holds a live corporate one, reading without
// PSU-Corporate-ID gets 401 CONSENT_EXPIRED with a scaRedirect (its
// private consent ended), not 400 CORPORATE_ID_INVALID.
func TestRevokedPrivateBeforeCorporateHint(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		q := h.consent("", "s1", sandbox.KariNumber, "", 1)
		psu := q.Get("psu-id")
		h.consent("", "s2", sandbox.KariNumber, "Fjordfisk AS", 2)
		ks, err := h.st.ListConsents(context.Background(), testTPP, kariID(t, h))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			if k.Context == "PRIVATE" {
				if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/consents/" + k.ID + "/revoke"}); status != 200 {
					t.Fatalf("revoke: %d %v", status, b)
				}
			}
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", psuID: psu})
		if status != 401 || errCode(b) != "CONSENT_EXPIRED" || scaLink(b) == "" {
			t.Fatalf("the revoked private consent beside a corporate one: %d %v", status, b)
		}
	})
}
