package backend

import (
	"testing"
	"time"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
)

// TestOpenAPITour walks the operations no other test of the package
// reaches (periodic and bulk payments after creation, a card account's
// balances and transaction details, a mock card account's balances, the
// identity provider's callback), so that the document's answers for them
// are checked too (newTestServer).
func TestOpenAPITour(t *testing.T) {
	h := newHarness(t, "sqlite")
	expect := func(c tppCall, want int) map[string]any {
		t.Helper()
		status, b, _ := h.call(c)
		if status != want {
			t.Fatalf("%s %s: %d %v, want %d", c.method, c.path, status, b, want)
		}
		return b
	}
	tomorrow := h.clk.now().AddDate(0, 0, 1).Format(time.DateOnly)
	instant := "/" + pis.InstantProduct
	for _, tc := range []struct{ base, body string }{
		{"/v1/periodic-payments", paymentBody("7.00", kariIBAN, olaIBAN, `,"startDate":"`+tomorrow+
			`","endDate":"`+h.clk.now().AddDate(1, 0, 0).Format(time.DateOnly)+`","frequency":"Monthly","executionRule":"following","dayOfExecution":"1"`)},
		{"/v1/bulk-payments", `{"batchBookingPreferred":true,"debtorAccount":{"iban":"` + kariIBAN + `"},"requestedExecutionDate":"` + tomorrow +
			`","payments":[{"instructedAmount":{"currency":"NOK","amount":"3.00"},"creditorAccount":{"iban":"` + olaIBAN +
			`"},"creditorName":"Mottaker AS","remittanceInformationUnstructured":"En"},{"instructedAmount":{"currency":"NOK","amount":"4.00"},` +
			`"creditorAccount":{"iban":"` + olaIBAN + `"},"creditorName":"Mottaker AS","endToEndIdentification":"E2E-2"}]}`},
	} {
		b := expect(tppCall{method: "POST", path: tc.base + instant, sid: "tour", body: tc.body}, 201)
		self, _ := href(b, "self")
		scaStatus, _ := href(b, "scaStatus")
		expect(tppCall{method: "GET", path: self, sid: "tour"}, 200)
		expect(tppCall{method: "GET", path: self + "/status", sid: "tour"}, 200)
		expect(tppCall{method: "GET", path: scaStatus, sid: "tour"}, 200)
		b = expect(tppCall{method: "POST", path: self + "/authorisations", sid: "tour"}, 201)
		if q := h.authorise(scaLink(b), sandbox.KariNumber); q.Get("psu-id") == "" {
			t.Fatalf("%s: authorisation %v", tc.base, q)
		}
		if b := expect(tppCall{method: "GET", path: self + "/status", sid: "tour"}, 200); b["transactionStatus"] != pis.StatusPending {
			t.Fatalf("%s: authorised for tomorrow: %v", tc.base, b)
		}
		expect(tppCall{method: "POST", path: self + "/authorisations", sid: "tour"}, 409)
		b = expect(tppCall{method: "POST", path: self + "/cancellation-authorisations", sid: "tour"}, 201)
		cancellation, _ := href(b, "scaStatus")
		expect(tppCall{method: "GET", path: cancellation, sid: "tour"}, 200)
		expect(tppCall{method: "DELETE", path: self, sid: "tour"}, 202)
	}

	q := h.consent("", "s1", sandbox.KariNumber, "", 3)
	psu := q.Get("psu-id")
	b := expect(tppCall{method: "GET", path: "/v1/card-accounts?withBalance=true", psuID: psu, sid: "s1", psuPresent: true}, 200)
	cards, _ := b["cardAccounts"].([]any)
	if len(cards) != 1 {
		t.Fatalf("card accounts: %v", b)
	}
	card := "/v1/card-accounts/" + cards[0].(map[string]any)["resourceId"].(string)
	expect(tppCall{method: "GET", path: card + "?withBalance=true", psuID: psu, sid: "s1", psuPresent: true}, 200)
	expect(tppCall{method: "GET", path: card + "/balances", psuID: psu, sid: "s1", psuPresent: true}, 200)
	b = expect(tppCall{method: "GET", path: card + "/transactions", psuID: psu, sid: "s1", psuPresent: true}, 200)
	booked, _ := b["cardTransactions"].(map[string]any)["booked"].([]any)
	if len(booked) == 0 {
		t.Fatalf("card transactions: %v", b)
	}
	details, _ := href(booked[0].(map[string]any), "transactionDetails")
	expect(tppCall{method: "GET", path: details, psuID: psu, sid: "s1", psuPresent: true}, 200)
	mock := "/v1/sandbox" + card[len("/v1"):]
	expect(tppCall{method: "PUT", path: mock + "/balances", body: `{"balances":[{"balanceType":"expected","balanceAmount":{"currency":"NOK","amount":500}}]}`}, 200)
	expect(tppCall{method: "PUT", path: mock + "/balances", body: `{"balances":[{"balanceType":"closingBooked","balanceAmount":{"currency":"NOK","amount":500}}]}`}, 400)

	// The identity provider's callback, where the sandbox has none.
	resp, err := h.browser().client.Get(h.srv.URL + sca.CallbackPath + "?state=s&code=c")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("callback without an identity provider: %d", resp.StatusCode)
	}
}
