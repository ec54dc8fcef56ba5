package backend

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sandbox/mockdata"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
)

// cardTx returns a valid card transaction body item with one field set
// (or removed with value "-") by edits.
func cardTx(edits map[string]string) string {
	f := map[string]string{
		"cardTransactionId":              `"tx-1"`,
		"terminalId":                     `"T1"`,
		"bookingDate":                    `"2026-11-20"`,
		"transactionDate":                `"2026-11-20"`,
		"transactionAmount":              `{"currency":"NOK","amount":250}`,
		"originalAmount":                 `{"currency":"NOK","amount":250}`,
		"merchantCategoryCode":           `"5411"`,
		"cardAcceptorId":                 `"ACQ1"`,
		"cardAcceptorAddress":            `{"street":"Storgata 1","city":"Oslo","country":"NO"}`,
		"maskedPan":                      `"5412xxxxxxxx1234"`,
		"transactionDetails":             `"REMA 1000"`,
		"invoiced":                       `"false"`,
		"proprietaryBankTransactionCode": `"PURCHASE"`,
	}
	for k, v := range edits {
		if v == "-" {
			delete(f, k)
		} else {
			f[k] = v
		}
	}
	parts := make([]string, 0, len(f))
	for k, v := range f {
		parts = append(parts, fmt.Sprintf("%q:%s", k, v))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestCardTransactionRulesThroughHTTP posts card transactions to a card
// account of the sandbox and checks every rule of the description's tables:
// one valid case, and one invalid case per rule naming the field.
func TestCardTransactionRulesThroughHTTP(t *testing.T) {
	h := newHarness(t, "sqlite")
	kari, _ := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.KariNumber)
	accs, _ := h.st.ListCustomerAccounts(context.Background(), kari.ID)
	var card string
	for _, a := range accs {
		if a.Kind == store.KindCardAccount {
			card = a.ID
		}
	}
	future := h.clk.now().Add(48 * time.Hour).Format(time.DateOnly)
	exchange := `{"sourceCurrency":"EUR","targetCurrency":"NOK","exchangeRate":"11.50","unitCurrency":"EUR","quotationDate":"2026-11-19","markupFee":{"currency":"NOK","amount":5},"markupFeePercentage":"1.75"}`
	cases := []struct {
		name  string
		edits map[string]string
		path  string // "" means valid
	}{
		{"valid", nil, ""},
		{"valid with currencyExchange", map[string]string{"currencyExchange": exchange}, ""},
		{"valid with boolean invoiced", map[string]string{"invoiced": "true"}, ""},
		// (issue 29, 11) as the vendor's card script posts them.
		{"valid: the markup without currencyExchange", map[string]string{"markupFee": `{"currency":"NOK","amount":5}`, "markupFeePercentage": `"1.75"`}, ""},
		{`valid: maskedPan ""`, map[string]string{"maskedPan": `""`}, ""},
		{"another card's maskedPan", map[string]string{"maskedPan": `"4925xxxxxxxx5678"`}, "$[0].maskedPan"},
		{"cardTransactionId required", map[string]string{"cardTransactionId": "-"}, "$[0].cardTransactionId"},
		{"terminalId required", map[string]string{"terminalId": "-"}, "$[0].terminalId"},
		{"bookingDate required", map[string]string{"bookingDate": "-"}, "$[0].bookingDate"},
		{"transactionDate required", map[string]string{"transactionDate": "-"}, "$[0].transactionDate"},
		{"transactionAmount required", map[string]string{"transactionAmount": "-"}, "$[0].transactionAmount"},
		{"transactionAmount.currency required", map[string]string{"transactionAmount": `{"amount":1}`}, "$[0].transactionAmount.currency"},
		{"transactionAmount.amount required", map[string]string{"transactionAmount": `{"currency":"NOK"}`}, "$[0].transactionAmount.amount"},
		{"amount is int32 (over)", map[string]string{"transactionAmount": `{"currency":"NOK","amount":2147483648}`}, "$[0].transactionAmount.amount"},
		{"amount is int32 (fraction)", map[string]string{"transactionAmount": `{"currency":"NOK","amount":1.5}`}, "$[0].transactionAmount.amount"},
		{"originalAmount required", map[string]string{"originalAmount": "-"}, "$[0].originalAmount"},
		{"originalAmount.amount int32", map[string]string{"originalAmount": `{"currency":"NOK","amount":-2147483649}`}, "$[0].originalAmount.amount"},
		{"merchantCategoryCode required", map[string]string{"merchantCategoryCode": "-"}, "$[0].merchantCategoryCode"},
		{"cardAcceptorId required", map[string]string{"cardAcceptorId": "-"}, "$[0].cardAcceptorId"},
		{"cardAcceptorAddress required", map[string]string{"cardAcceptorAddress": "-"}, "$[0].cardAcceptorAddress"},
		{"country from the allowed list", map[string]string{"cardAcceptorAddress": `{"country":"XX"}`}, "$[0].cardAcceptorAddress.country"},
		{"country two letters", map[string]string{"cardAcceptorAddress": `{"country":"NOR"}`}, "$[0].cardAcceptorAddress.country"},
		{"street at most 70", map[string]string{"cardAcceptorAddress": `{"country":"NO","street":"` + strings.Repeat("å", 71) + `"}`}, "$[0].cardAcceptorAddress.street"},
		{"maskedPan required", map[string]string{"maskedPan": "-"}, "$[0].maskedPan"},
		{"transactionDetails required", map[string]string{"transactionDetails": "-"}, "$[0].transactionDetails"},
		{"invoiced required", map[string]string{"invoiced": "-"}, "$[0].invoiced"},
		{"invoiced true or false", map[string]string{"invoiced": `"yes"`}, "$[0].invoiced"},
		{"proprietaryBankTransactionCode required", map[string]string{"proprietaryBankTransactionCode": "-"}, "$[0].proprietaryBankTransactionCode"},
		{"currency from the allowed list", map[string]string{"transactionAmount": `{"currency":"XYZ","amount":1}`}, "$[0].transactionAmount.currency"},
		{"currencyExchange needs every field", map[string]string{"currencyExchange": `{"sourceCurrency":"EUR"}`}, "$[0].currencyExchange"},
		{"currencyExchange currencies allowed", map[string]string{"currencyExchange": strings.Replace(exchange, `"unitCurrency":"EUR"`, `"unitCurrency":"ABC"`, 1)}, "$[0].currencyExchange.unitCurrency"},
		{"markupFee amount int32", map[string]string{"currencyExchange": strings.Replace(exchange, `"amount":5`, `"amount":5.5`, 1)}, "$[0].currencyExchange.markupFee.amount"},
		{"booking date before now", map[string]string{"bookingDate": `"` + future + `"`, "transactionDate": `"` + future + `"`}, "$[0].bookingDate"},
		{"value date before now", map[string]string{"transactionDate": `"` + future + `"`}, "$[0].transactionDate"},
		{"booking date not after value date", map[string]string{"bookingDate": `"2026-11-20"`, "transactionDate": `"2026-11-19"`}, "$[0].bookingDate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/card-accounts/" + card + "/transactions", body: "[" + cardTx(tc.edits) + "]"})
			if tc.path == "" {
				ct, _ := b["cardTransactions"].(map[string]any)
				booked, _ := ct["booked"].([]any)
				if status != 201 || len(booked) != 1 || b["cardAccount"].(map[string]any)["maskedPan"] != "5412xxxxxxxx1234" {
					t.Fatalf("valid: %d %v", status, b)
				}
				return
			}
			if status != 400 {
				t.Fatalf("%d %v", status, b)
			}
			found := false
			for _, m := range b["tppMessages"].([]any) {
				msg := m.(map[string]any)
				found = found || (msg["code"] == "FORMAT_ERROR" && strings.HasPrefix(fmt.Sprint(msg["path"]), tc.path) && msg["text"] != "")
			}
			if !found {
				t.Fatalf("no FORMAT_ERROR naming %s: %v", tc.path, b)
			}
		})
	}
	// The valid transactions show up in the card account's transactions.
	_, cs, _ := h.call(tppCall{method: "GET", path: "/v1/sandbox/card-accounts/" + card})
	if cs["id"] != card {
		t.Fatalf("mock card account %v", cs)
	}
}

func TestMockDataOperations(t *testing.T) {
	h := newHarness(t, "sqlite")
	status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"13039319999","name":"Test Testperson 3","type":"Private"}`})
	if status != 201 || b["customerType"] != "PRIVATE" || b["customerId"] == "" {
		t.Fatalf("customer: %d %v", status, b)
	}
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"13039319999","name":"Again","type":"private"}`}); status != 400 {
		t.Fatalf("duplicate customer: %d %v", status, b)
	}
	status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts", body: `{"customerNumber":"13039319999","accountName":"Totalkonto","bban":"86011117947","currency":"NOK","product":"Totalkonto","cashAccountType":"CACC","creditLine":0,"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":18000,"currency":"NOK"}}]}`})
	if status != 201 || b["iban"] != "NO9386011117947" {
		t.Fatalf("account: %d %v", status, b)
	}
	acc := b["id"].(string)
	status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts/" + acc + "/transactions", body: `[{"amount":-1500,"currency":"NOK","valueDate":"2026-11-01","bookingDate":"2026-11-01","remittanceInformationUnstructured":"Husleie","creditorName":"Utleier AS"}]`})
	if status != 201 {
		t.Fatalf("transactions: %d %v", status, b)
	}
	// Another account as debtor is refused.
	status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts/" + acc + "/transactions", body: `[{"amount":-1,"currency":"NOK","bookingDate":"2026-11-01","debtorAccount":{"iban":"NO7112345678903"}}]`})
	if status != 400 || !strings.Contains(fmt.Sprint(b), "debtor") {
		t.Fatalf("foreign debtor: %d %v", status, b)
	}
	// Balances moved with the booked amount: 18000 - 1500.
	_, b, _ = h.call(tppCall{method: "GET", path: "/v1/sandbox/accounts/" + acc})
	if !strings.Contains(fmt.Sprint(b["balances"]), "16500.00") {
		t.Fatalf("balances after a transaction: %v", b["balances"])
	}
	status, b, _ = h.call(tppCall{method: "PUT", path: "/v1/sandbox/accounts/" + acc + "/balances", body: `{"balances":[{"balanceType":"closingBooked","balanceAmount":{"amount":100,"currency":"NOK"}}]}`})
	if status != 200 || !strings.Contains(fmt.Sprint(b["balances"]), "100.00") {
		t.Fatalf("put balances: %d %v", status, b)
	}
	status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/agreements", body: `{"owner":"910000001","name":"Fjordfisk drift","engagements":[{"customer":"13039319999","account":{"iban":"` + mustIBAN(t, h, sandbox.FjordfiskNumber) + `"},"roles":["VIEW","REGISTER"]}]}`})
	if status != 201 {
		t.Fatalf("agreement: %d %v", status, b)
	}
	_, b, _ = h.call(tppCall{method: "GET", path: "/v1/sandbox/agreements"})
	if n := len(b["agreements"].([]any)); n != 3 {
		t.Fatalf("%d agreements", n)
	}
	// Deleting the customer removes what hangs off it.
	cid := ""
	_, b, _ = h.call(tppCall{method: "GET", path: "/v1/sandbox/customers"})
	for _, c := range b["customers"].([]any) {
		if c.(map[string]any)["customerNumber"] == "13039319999" {
			cid = c.(map[string]any)["customerId"].(string)
		}
	}
	if status, _, _ := h.call(tppCall{method: "DELETE", path: "/v1/sandbox/customers/" + cid}); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _, _ := h.call(tppCall{method: "GET", path: "/v1/sandbox/accounts/" + acc}); status != 404 {
		t.Fatalf("account of a deleted customer: %d", status)
	}
}

func mustIBAN(t *testing.T, h *harness, number string) string {
	c, err := h.st.GetCustomerByNumber(context.Background(), testTPP, number)
	if err != nil {
		t.Fatal(err)
	}
	accs, _ := h.st.ListCustomerAccounts(context.Background(), c.ID)
	return accs[0].IBAN
}

// TestInitializeIsAtomicUnderWrites resets the sandbox while customers are
// being created; afterwards the store holds exactly the fixed data set plus
// only customers created after the last reset committed.
func TestInitializeIsAtomicUnderWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: fmt.Sprintf(`{"customerNumber":"77%09d","name":"Writer","type":"private"}`, i)})
			}
		}()
		for i := 0; i < 3; i++ {
			h.clk.add(sandbox.Resets.Every) // one reset every 10 s
			if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/initialize"}); status != 200 {
				t.Fatalf("initialize: %d %v", status, b)
			}
		}
		close(stop)
		wg.Wait()
		// One more reset with no writer: exactly the known state.
		h.clk.add(sandbox.Resets.Every)
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/initialize"})
		cs := b["customers"].([]any)
		if status != 200 || len(cs) != 4 {
			t.Fatalf("after reset: %d %d customers", status, len(cs))
		}
		numbers := map[string]bool{}
		for _, c := range cs {
			numbers[c.(map[string]any)["customerNumber"].(string)] = true
		}
		for _, n := range []string{sandbox.KariNumber, sandbox.OlaNumber, sandbox.FjordfiskNumber, sandbox.BakeriNumber} {
			if !numbers[n] {
				t.Fatalf("customer %s missing after reset", n)
			}
		}
		// Every fixed account is there exactly once with its balances.
		kari, _ := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.KariNumber)
		accs, _ := h.st.ListCustomerAccounts(context.Background(), kari.ID)
		if len(accs) != 3 {
			t.Fatalf("Kari has %d accounts after reset", len(accs))
		}
	})
}

// TestInitializeInvalidates (issue 19): initialize answers, besides the
// customers, a notice of what the reset ended, and each of its claims
// holds: the PSU-ID from before gets 401 CONSENT_INVALID with a new
// scaRedirect and the next SCA gives another; the consent, the payment, the
// basket and the account from before answer 404, the link of a flow
// started before the SCA page's 404, while a 401's sealed link, which
// holds its flow, opens a fresh one; the TPP's contacts stay.
func TestInitializeInvalidates(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		psuID := h.consent("", "s1", sandbox.KariNumber, "", 1).Get("psu-id")
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "s1", psuID: psuID, psuPresent: true})
		accounts, _ := b["accounts"].([]any)
		if status != 200 || len(accounts) != 1 {
			t.Fatalf("accounts before the reset: %d %v", status, b)
		}
		account := "/v1/accounts/" + accounts[0].(map[string]any)["resourceId"].(string)
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/bank-offered-consents", sid: "s2"})
		consent, flowLink := "/v1/bank-offered-consents/"+b["consentId"].(string), scaLink(b)
		_, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "s4", psuPresent: true})
		sealedLink := scaLink(b)
		h.browser().open(sealedLink)
		_, payment := h.authorisedPayment("", pis.StatusAccepted)
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.DomesticProduct, sid: "s2", body: paymentBody("10.00", kariIBAN, olaIBAN, "")})
		_, b, _ = h.call(tppCall{method: "POST", path: "/v1/signing-baskets", sid: "s2", psuID: basketPSU, psuPresent: true, body: `{"paymentIds":["` + b["paymentId"].(string) + `"]}`})
		basket := "/v1/signing-baskets/" + b["basketId"].(string)
		if status, b, _ := h.call(tppCall{method: "PUT", path: "/v1/tpp-contacts", body: `{"emailAddresses":["drift@tpp.example"]}`}); status != 200 {
			t.Fatalf("contacts: %d %v", status, b)
		}
		for _, path := range []string{consent, payment, basket} {
			if status, b, _ := h.call(tppCall{method: "GET", path: path}); status != 200 {
				t.Fatalf("GET %s before the reset: %d %v", path, status, b)
			}
		}

		status, b, _ = h.call(tppCall{method: "POST", path: "/v1/sandbox/initialize"})
		notice, _ := b["notice"].(string)
		if status != 200 || len(b["customers"].([]any)) != 4 || notice != sandbox.ResetNotice {
			t.Fatalf("initialize: %d %v", status, b)
		}
		for _, w := range []string{"PSU-ID", "consent", "TPP session", "payment", "signing basket", "SCA flow", "401 CONSENT_INVALID", "404", "contact addresses are kept"} {
			if !strings.Contains(notice, w) {
				t.Errorf("notice does not say %q: %s", w, notice)
			}
		}

		status, b, _ = h.call(tppCall{method: "GET", path: "/v1/accounts", sid: "s1", psuID: psuID, psuPresent: true})
		if status != 401 || errCode(b) != "CONSENT_INVALID" || scaLink(b) == "" {
			t.Errorf("PSU-ID from before: %d %v", status, b)
		}
		newID := h.consent("", "s3", sandbox.KariNumber, "", 3).Get("psu-id")
		if newID == "" || newID == psuID {
			t.Errorf("PSU-ID after the reset %q, before %q", newID, psuID)
		}
		for _, c := range []tppCall{{method: "GET", path: consent}, {method: "GET", path: payment}, {method: "GET", path: basket},
			{method: "GET", path: account, sid: "s3", psuID: newID, psuPresent: true}} {
			if status, b, _ := h.call(c); status != 404 {
				t.Errorf("GET %s after the reset: %d %v", c.path, status, b)
			}
		}
		resp, err := h.browser().client.Get(h.srv.URL + flowLink)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body.Close(); resp.StatusCode != 404 {
			t.Errorf("SCA link from before: %d", resp.StatusCode)
		}
		if page := h.browser().open(sealedLink); !strings.Contains(page, `name="customerNumber"`) {
			t.Errorf("a 401's sealed link from before does not open a fresh flow: %s", page)
		}
		if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/tpp-contacts"}); status != 200 {
			t.Errorf("contacts after the reset: %d %v", status, b)
		}
	})
}

func TestSandboxRoutesAbsentInProduction(t *testing.T) {
	h := newHarness(t, "sqlite")
	ver, _ := tppcontext.NewVerifier(bytes.Repeat([]byte{9}, 32))
	prod := newTestServer(t, New(Config{Store: h.st, Tokens: ver, Sandbox: false, Now: h.clk.now}))
	defer prod.Close()
	h.srv = prod
	for _, path := range []string{"/v1/sandbox/initialize", "/v1/sandbox/customers"} {
		status, b, _ := h.call(tppCall{method: "POST", path: path, body: "{}"})
		if status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("%s in production: %d %v", path, status, b)
		}
	}
	// The AIS routes are there.
	if status, b, _ := h.call(tppCall{method: "GET", path: "/v1/accounts"}); status != 401 {
		t.Fatalf("AIS in production: %d %v", status, b)
	}
}

func BenchmarkInitialize(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, b.TempDir()+"/s.db", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for b.Loop() {
		if err := sandbox.Reset(ctx, st, testTPP, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCardDetailsExchangeAsArray (issue 29, 12; 11): a card transaction's
// exchange is served as account transactions serve theirs, an array of
// reportExchangeRate, with the markup at the transaction's top level;
// a markup sent without an exchange is served alone.
func TestCardDetailsExchangeAsArray(t *testing.T) {
	fee := mockdata.Money{Currency: "NOK", Minor: 500}
	d := mockdata.CardTransactionDetails(&mockdata.CardTransaction{CurrencyExchange: &mockdata.CurrencyExchange{SourceCurrency: "EUR", TargetCurrency: "NOK",
		UnitCurrency: "EUR", ExchangeRate: "11.50", QuotationDate: "2026-11-19", MarkupFee: fee, MarkupFeePercentage: "1.75"}})
	x, ok := d["currencyExchange"].([]map[string]any)
	if !ok || len(x) != 1 || x[0]["exchangeRate"] != "11.50" || x[0]["markupFee"] != nil || d["markupFee"] == nil || d["markupFeePercentage"] != "1.75" {
		t.Fatalf("with an exchange: %v", d)
	}
	d = mockdata.CardTransactionDetails(&mockdata.CardTransaction{Markup: &mockdata.Markup{Fee: &fee, Percentage: "2.5"}})
	if d["currencyExchange"] != nil || d["markupFee"] == nil || d["markupFeePercentage"] != "2.5" {
		t.Fatalf("a markup alone: %v", d)
	}
}

// TestMockAgreementSelf (issue 29, 12): a mock agreement's _links.self
// names the agreement, which answers there; another TPP's sandbox does
// not know it.
func TestMockAgreementSelf(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, b, _ := h.call(tppCall{method: "GET", path: "/v1/sandbox/agreements"})
		ags, _ := b["agreements"].([]any)
		if len(ags) == 0 {
			t.Fatalf("agreements: %v", b)
		}
		ag := ags[0].(map[string]any)
		self := ag["_links"].(map[string]any)["self"].(map[string]any)["href"].(string)
		if self != "/v1/sandbox/agreements/"+ag["agreementId"].(string) {
			t.Fatalf("self %s of %v", self, ag)
		}
		status, got, _ := h.call(tppCall{method: "GET", path: self})
		if status != 200 || got["agreementId"] != ag["agreementId"] || got["name"] != ag["name"] {
			t.Fatalf("GET self: %d %v", status, got)
		}
		if status, b, _ := h.call(tppCall{tpp: "PSDNO-FSA-987654322", method: "GET", path: self}); status != 404 || errCode(b) != "RESOURCE_UNKNOWN" {
			t.Fatalf("another TPP's sandbox: %d %v", status, b)
		}
	})
}

// TestBookedBalanceMatchesBookedTransactions (issue 29, 7; release
// 1.21.21): whatever mock data does, an account's closingBooked is the sum
// of its booked transactions. A booked balance sent at creation or with
// PUT is booked as an opening or adjusting transaction; an account
// created with an expected balance only reports closingBooked too, and
// transactions move it; two booked balances that disagree are refused,
// naming the field.
func TestBookedBalanceMatchesBookedTransactions(t *testing.T) {
	h := newHarness(t, "sqlite")
	ctx := context.Background()
	matches := func(acc string, want int64) {
		t.Helper()
		txs, _, err := h.st.ListTransactions(ctx, acc, store.TransactionFilter{Booked: true})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, tx := range txs {
			sum += tx.Amount
		}
		status, b, _ := h.call(tppCall{method: "GET", path: "/v1/sandbox/accounts/" + acc})
		closing := ""
		for _, x := range b["balances"].([]any) {
			if x := x.(map[string]any); x["balanceType"] == "closingBooked" {
				closing = x["balanceAmount"].(map[string]any)["amount"].(string)
			}
		}
		if status != 200 || sum != want || closing != money.Format(want, "NOK") {
			t.Fatalf("account %s: booked transactions add up to %d, closingBooked %q; want both %d", acc, sum, closing, want)
		}
	}
	h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"55555555555","name":"Rik","type":"private"}`})
	account := func(bban, balances string) string {
		t.Helper()
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts", body: `{"customerNumber":"55555555555","accountName":"Konto","bban":"` + bban + `","currency":"NOK","balances":[` + balances + `]}`})
		if status != 201 {
			t.Fatalf("account: %d %v", status, b)
		}
		return b["id"].(string)
	}
	bal := func(typ, amount string) string {
		return `{"balanceType":"` + typ + `","balanceAmount":{"amount":` + amount + `,"currency":"NOK"}}`
	}
	opened := account("86011117947", bal("expected", "20000")+","+bal("closingBooked", "20000"))
	matches(opened, 2000000)
	expectedOnly := account("86011117963", bal("EXPECTED", "5000"))
	matches(expectedOnly, 0)
	var many []string
	for range 205 {
		many = append(many, `{"amount":-1,"currency":"NOK","bookingDate":"2026-11-01","valueDate":"2026-11-01","remittanceInformationUnstructured":"Kaffe"}`)
	}
	if status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts/" + expectedOnly + "/transactions", body: "[" + strings.Join(many, ",") + "]"}); status != 201 {
		t.Fatalf("transactions: %d %v", status, b)
	}
	matches(expectedOnly, -20500)

	put := func(acc, path, body string) (int, map[string]any) {
		status, b, _ := h.call(tppCall{method: "PUT", path: "/v1/sandbox/accounts/" + acc + path, body: body})
		return status, b
	}
	if status, b := put(opened, "/balances", `{"balances":[`+bal("closingBooked", "100")+`]}`); status != 200 {
		t.Fatalf("put balances: %d %v", status, b)
	}
	matches(opened, 10000)
	// No booked balance sent: it stays what the transactions say.
	if status, b := put(opened, "/balances", `{"balances":[`+bal("expected", "50")+`]}`); status != 200 || !strings.Contains(fmt.Sprint(b["balances"]), "50.00") {
		t.Fatalf("put balances: %d %v", status, b)
	}
	matches(opened, 10000)
	// The account's PUT sets it the same way.
	if status, b := put(opened, "", `{"customerNumber":"55555555555","accountName":"Konto","bban":"86011117947","currency":"NOK","balances":[`+bal("interimBooked", "300")+`]}`); status != 200 {
		t.Fatalf("put account: %d %v", status, b)
	}
	matches(opened, 30000)
	status, b := put(opened, "/balances", `{"balances":[`+bal("closingBooked", "100")+","+bal("interimBooked", "90")+`]}`)
	if status != 400 || !strings.Contains(fmt.Sprint(b), "$.balances[1].balanceAmount.amount") || !strings.Contains(fmt.Sprint(b), "sum of the account's booked transactions") {
		t.Fatalf("booked balances that disagree: %d %v", status, b)
	}
	matches(opened, 30000)
}

// TestBusinessDatesAreOslos (issue 30, 6): the sandbox's booking and
// value dates are the bank's (Europe/Oslo) business date, as the
// payments' are: at 23:30 UTC on 28 November it is already 29 November.
func TestBusinessDatesAreOslos(t *testing.T) {
	h := newHarness(t, "sqlite")
	h.clk.mu.Lock()
	h.clk.t = time.Date(2026, 11, 28, 23, 30, 0, 0, time.UTC)
	h.clk.mu.Unlock()
	h.call(tppCall{method: "POST", path: "/v1/sandbox/customers", body: `{"customerNumber":"55555555555","name":"Rik","type":"private"}`})
	status, b, _ := h.call(tppCall{method: "POST", path: "/v1/sandbox/accounts", body: `{"customerNumber":"55555555555","accountName":"Konto","bban":"86011117947","currency":"NOK","balances":[{"balanceType":"closingBooked","balanceAmount":{"amount":100,"currency":"NOK"}}]}`})
	if status != 201 {
		t.Fatalf("account: %d %v", status, b)
	}
	id := b["id"].(string)
	txs, _, _ := h.st.ListTransactions(context.Background(), id, store.TransactionFilter{Booked: true})
	if len(txs) != 1 || txs[0].BookingDate != "2026-11-29" || txs[0].ValueDate != "2026-11-29" {
		t.Fatalf("the opening booking %+v: want Oslo's date, 2026-11-29", txs)
	}
	// A consent given now: its lastActionDate and validUntil are Oslo's
	// dates of the instants.
	h.consent(testTPP, "s-oslo", sandbox.KariNumber, "", 1)
	kari, err := h.st.GetCustomerByNumber(context.Background(), testTPP, sandbox.KariNumber)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := h.st.ListConsents(context.Background(), testTPP, kari.ID)
	if err != nil || len(ks) == 0 {
		t.Fatalf("Kari's consents: %v %v", ks, err)
	}
	status, b, _ = h.call(tppCall{method: "GET", path: "/v1/consents/" + ks[0].ID, sid: "s-oslo"})
	if status != 200 || b["lastActionDate"] != "2026-11-29" || b["validUntil"] != civildate.Today(ks[0].ValidUntil) {
		t.Fatalf("the consent: %d %v", status, b)
	}
}
