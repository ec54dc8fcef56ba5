package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/backend/sandbox"
)

// TestBasePath (issue 16): the shipped Caddyfile serves the dialect's
// tooling under /api-sandbox/v1/...: signatures over (request-target) of
// the request line as sent verify, the scaRedirect, the SCA pages and the
// answers' links keep the base path, and a PSU walks the whole consent
// under it.
func TestBasePath(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("GET", "/api-sandbox/v1/accounts", true)
	href := got.err.Links["scaRedirect"].Href
	if got.status != 401 || !strings.HasPrefix(href, "/api-sandbox/v1/sca/s/") {
		t.Fatalf("without consent under the base path: %d %s", got.status, got.body)
	}
	got = s.call("POST", "/api-sandbox/v1/bank-offered-consents", true)
	var created struct {
		ConsentID string `json:"consentId"`
		Links     map[string]struct {
			Href string `json:"href"`
		} `json:"_links"`
	}
	if got.status != 201 || json.Unmarshal(got.body, &created) != nil {
		t.Fatalf("consent under the base path: %d %s", got.status, got.body)
	}
	for name, l := range created.Links {
		if !strings.HasPrefix(l.Href, "/api-sandbox/v1/") {
			t.Errorf("link %s = %s, want it under /api-sandbox", name, l.Href)
		}
	}
	// The sealed link of the first answer, walked in a browser: its
	// redirect and the page's form stay under the base path.
	q := psuBrowser(t, g, href, sandbox.KariNumber, 3)
	s.psuID = q.Get("psu-id")
	if s.psuID == "" {
		t.Fatalf("redirect %v", q)
	}
	got = s.call("GET", "/api-sandbox/v1/accounts", true)
	if got.status != 200 || strings.Contains(string(got.body), `"href":"/v1/`) || !strings.Contains(string(got.body), `"href":"/api-sandbox/v1/`) {
		t.Fatalf("accounts under the base path: %d %s", got.status, got.body)
	}
	// The same consent serves /v1/... with /v1/ links.
	got = s.call("GET", "/v1/accounts", true)
	if got.status != 200 || strings.Contains(string(got.body), "/api-sandbox") {
		t.Fatalf("accounts without the base path: %d %s", got.status, got.body)
	}
	// Signed over (request-target): the request line as sent.
	req := newRequest(t, g, "GET", "/api-sandbox/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", s.sid)
	req.Header.Set("PSU-ID", s.psuID)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	sg := signer(t, "tpp")
	sg.SignRequestTarget = true
	if err := sg.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if r := send(t, s.c, req); r.status != 200 {
		t.Fatalf("(request-target) signed under the base path: %d %s", r.status, r.body)
	}
}

// TestBasePathConfigured: OBGW_BASE_PATH sets the base path the gateway
// strips; the default one is then a path like any unknown other.
func TestBasePathConfigured(t *testing.T) {
	g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), "OBGW_BASE_PATH=/psd2")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}
	got := s.call("GET", "/psd2/v1/accounts", true)
	if href := got.err.Links["scaRedirect"].Href; got.status != 401 || !strings.HasPrefix(href, "/psd2/v1/sca/s/") {
		t.Fatalf("without consent under /psd2: %d %s", got.status, got.body)
	}
	if got := s.call("GET", "/api-sandbox/v1/accounts", true); got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
		t.Fatalf("under the default base path, not configured: %d %s", got.status, got.body)
	}
}

// TestToolingMockDataCalls (issue 16): the dialect's tooling's calls, as
// it sends them: contract section 10's bodies unchanged (the account
// number 09232911044 without a MOD11 check digit, a card account with the
// same EXPECTED balance twice, free-text codes, empty strings, the markup
// at the top level), signed over date, digest and x-request-id only,
// under the base path /api-sandbox. Each gets 2xx.
func TestToolingMockDataCalls(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	c := client(nil)
	call := func(method, path, body string) []byte {
		t.Helper()
		var b []byte
		if body != "" {
			b = []byte(body)
		}
		req := newRequest(t, g, method, "/api-sandbox"+path, b)
		req.Header.Del("TPP-Redirect-URI")
		if err := signer(t, "tpp").Sign(req, b); err != nil {
			t.Fatal(err)
		}
		got := send(t, c, req)
		if got.status/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, got.status, got.body)
		}
		return got.body
	}
	id := func(body []byte) string {
		var v struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(body, &v) != nil || v.ID == "" {
			t.Fatalf("no id in %s", body)
		}
		return v.ID
	}
	call("POST", "/v1/sandbox/customers", `{"customerNumber":"13039319955","name":"Test Testperson 3","type":"private"}`)
	account := id(call("POST", "/v1/sandbox/accounts", `{"customerNumber":"13039319955","accountName":"Totalkonto","bban":"09232911044","iban":"NO7809232911044","currency":"NOK","product":"Totalkonto","cashAccountType":"CACC","creditLine":0,"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":18000,"currency":"NOK"}}]}`))
	balance := `{"balanceAmount":{"currency":"NOK","amount":1000},"balanceType":"EXPECTED","referenceDate":"2026-01-01","lastChangeDateTime":"2026-01-01T10:00:00Z","lastCommittedTransaction":"ct-1"}`
	card := id(call("POST", "/v1/sandbox/card-accounts", `{"customerNumber":"13039319955","maskedPan":"1234xxxxxxxx4321","currency":"NOK","creditLimit":{"currency":"NOK","amount":1000},"balances":[`+balance+`,`+balance+`],"cardId":"1","cardIdVNo":"2","accountNumber":"123412341234","expiry":"2028-01-01","name":"Test Mastercard","product":"Basic Credit","status":"ENABLED"}`))
	day := time.Now().AddDate(0, 0, -2).Format(time.DateOnly)
	call("POST", "/v1/sandbox/accounts/"+account+"/transactions", `[{"amount":1500,"currency":"NOK","valueDate":"`+day+`","bookingDate":"`+day+`","remittanceInformationUnstructured":"Lønn","creditorId":"NO12ZZZ123","creditorName":"Test Testperson 3","creditorAccount":{"iban":"NO9386011117947","bban":"86011117947"},"ultimateCreditor":"Test","debtorName":"Arbeidsgiver AS","debtorAccount":{"iban":"NO7809232911044"},"ultimateDebtor":"Arbeidsgiver","purposeCode":"Lønn for november","bankTransactionCode":"PMNT"}]`)
	call("POST", "/v1/sandbox/card-accounts/"+card+"/transactions", `[{"cardTransactionId":"ct-1","terminalId":"","bookingDate":"`+day+`","transactionDate":"`+day+`","transactionAmount":{"currency":"NOK","amount":-459},"originalAmount":{"currency":"EUR","amount":-40},"merchantCategoryCode":"54 11","currencyExchange":{"sourceCurrency":"EUR","targetCurrency":"NOK","exchangeRate":"11.4750","unitCurrency":"EUR","quotationDate":"`+day+`"},"markupFee":{"currency":"NOK","amount":5},"markupFeePercentage":"1.25","cardAcceptorId":"","cardAcceptorAddress":{"city":"Oslo"},"maskedPan":"1234xxxxxxxx4321","transactionDetails":"REMA 1000","invoiced":"","proprietaryBankTransactionCode":""}]`)
}
