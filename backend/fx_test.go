package backend

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
)

// crossBorderBody is a cross-border payment of amount in currency from
// debtor to a Japanese bank's account.
func crossBorderBody(currency, amount, debtor string) string {
	return `{"instructedAmount":{"currency":"` + currency + `","amount":"` + amount + `"},"debtorAccount":{"iban":"` + debtor +
		`"},"creditorAccount":{"bban":"12345678"},"creditorAgent":"MHCBJPJT","creditorName":"Tokyo Shoji KK",` +
		`"creditorAddress":{"townName":"Tokyo","country":"JP"}}`
}

// booked returns the booked transactions of the account with iban, and
// its closingBooked balance.
func (h *harness) booked(iban string) (*store.Account, map[string]store.Transaction, int64) {
	h.t.Helper()
	ctx := context.Background()
	a, err := h.st.GetAccountByNumber(ctx, testTPP, iban, "")
	if err != nil {
		h.t.Fatal(err)
	}
	txs, _, err := h.st.ListTransactions(ctx, a.ID, store.TransactionFilter{Booked: true})
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]store.Transaction{}
	for _, t := range txs {
		out[t.ID] = t
	}
	bs, _ := h.st.ListBalances(ctx, a.ID)
	var closing int64
	for _, b := range bs {
		if b.Type == "closingBooked" {
			closing = b.Amount
			if b.Currency != a.Currency {
				h.t.Fatalf("closingBooked in %s on a %s account", b.Currency, a.Currency)
			}
		}
	}
	return a, out, closing
}

// newBooking returns the one booked transaction of iban that is not in
// before, and checks release 1.21.21 on the account: every booked
// transaction is in the account's currency and closingBooked is their sum.
func (h *harness) newBooking(iban string, before map[string]store.Transaction) (store.Transaction, map[string]any) {
	h.t.Helper()
	a, after, closing := h.booked(iban)
	var sum int64
	var fresh []store.Transaction
	for id, t := range after {
		if t.Currency != a.Currency {
			h.t.Errorf("booked transaction %s in %s on a %s account", id, t.Currency, a.Currency)
		}
		sum += t.Amount
		if _, ok := before[id]; !ok {
			fresh = append(fresh, t)
		}
	}
	if sum != closing {
		h.t.Errorf("closingBooked %d, booked transactions sum to %d", closing, sum)
	}
	if len(fresh) != 1 {
		h.t.Fatalf("%d new booked transactions on %s, want 1", len(fresh), iban)
	}
	var d map[string]any
	if err := json.Unmarshal(fresh[0].Details, &d); err != nil {
		h.t.Fatal(err)
	}
	return fresh[0], d
}

// payAndSettle creates a payment of product with body, has customer
// authorise it, runs a batch and returns the payment.
func (h *harness) payAndSettle(product, body, customer string) *store.Payment {
	h.t.Helper()
	_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + product, sid: "fx", body: body})
	id, _ := b["paymentId"].(string)
	if id == "" {
		h.t.Fatalf("create: %v", b)
	}
	if q := h.authorise(scaLink(b), customer); q.Get("psu-id") == "" {
		h.t.Fatalf("authorise: %v", q)
	}
	h.call(tppCall{method: "POST", path: "/v1/sandbox/payment-batch-runs"})
	p, err := h.st.GetPayment(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// TestNoCurrencyConversion (issue 14, item 1): a cross-border JPY 5000
// from a NOK account is debited as NOK 356.00 (sandbox rate 0.0712), with
// the instructed amount as originalAmount and the rate as
// currencyExchange, and closingBooked stays the sum of the booked
// transactions.
func TestNoCurrencyConversion(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, before, closing := h.booked(kariIBAN)
		p := h.payAndSettle("cross-border-credit-transfers", crossBorderBody("JPY", "5000", kariIBAN), sandbox.KariNumber)
		if p.Status != pis.StatusSettled {
			t.Fatalf("payment %s", p.Status)
		}
		tx, d := h.newBooking(kariIBAN, before)
		if tx.Currency != "NOK" || tx.Amount != -35600 {
			t.Fatalf("booked %s %d, want NOK -35600", tx.Currency, tx.Amount)
		}
		if _, _, now := h.booked(kariIBAN); now != closing-35600 {
			t.Fatalf("closingBooked %d -> %d, want -35600", closing, now)
		}
		today := payments.Today(h.clk.now())
		want := map[string]any{
			"originalAmount": map[string]any{"currency": "JPY", "amount": "-5000"},
			"currencyExchange": []any{map[string]any{"sourceCurrency": "JPY", "exchangeRate": "0.0712", "unitCurrency": "JPY",
				"targetCurrency": "NOK", "quotationDate": today}},
		}
		for k, v := range want {
			if !reflect.DeepEqual(d[k], v) {
				t.Errorf("%s = %v, want %v", k, d[k], v)
			}
		}
	})
}

// TestNoCurrencyConversionFundsInAccountCurrency: JPY 100000 is NOK
// 7120.00; an account holding NOK 1000.00 (100000 minor units, as many as
// the payment's yen) lacks the funds, and the batch run says so.
func TestNoCurrencyConversionFundsInAccountCurrency(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		a, _, _ := h.booked(kariIBAN)
		bs := []store.Balance{{Type: "closingBooked", Amount: 100000, Currency: "NOK"}, {Type: "expected", Amount: 100000, Currency: "NOK"}}
		if err := h.st.SetBalances(ctx, a.ID, bs); err != nil {
			t.Fatal(err)
		}
		p := h.payAndSettle("cross-border-credit-transfers", crossBorderBody("JPY", "100000", kariIBAN), sandbox.KariNumber)
		if p.Status != pis.StatusAcceptedCustomerProfile || p.FundsAvailable != "false" {
			t.Fatalf("JPY 100000 from NOK 1000.00: %s, fundsAvailable %q", p.Status, p.FundsAvailable)
		}
	})
}

// TestNoCurrencyConversionCreditOwnAccount: NOK 1000.00 to an own EUR
// account is credited as EUR 85.11 (1000 / 11.75 = 85.106..., half away
// from zero), with originalAmount and currencyExchange; the NOK debit
// carries neither.
func TestNoCurrencyConversionCreditOwnAccount(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		ola, err := h.st.GetCustomerByNumber(ctx, testTPP, sandbox.OlaNumber)
		if err != nil {
			t.Fatal(err)
		}
		bban, err := bankaccount.CompleteBBAN("1203102901")
		if err != nil {
			t.Fatal(err)
		}
		eur := &store.Account{CustomerID: ola.ID, Kind: store.KindAccount, Name: "Valutakonto", Product: "Valutakonto",
			CashAccountType: "CACC", Currency: "EUR", BBAN: bban, IBAN: bankaccount.IBAN("NO", bban), Status: "enabled"}
		if err := h.st.CreateAccount(ctx, eur); err != nil {
			t.Fatal(err)
		}
		_, kariBefore, _ := h.booked(kariIBAN)
		_, eurBefore, _ := h.booked(eur.IBAN)
		p := h.payAndSettle(pis.DomesticProduct, paymentBody("1000.00", kariIBAN, eur.IBAN, `,"endToEndIdentification":"e2e-42"`), sandbox.KariNumber)
		if p.Status != pis.StatusSettled {
			t.Fatalf("payment %s", p.Status)
		}
		credit, d := h.newBooking(eur.IBAN, eurBefore)
		if credit.Currency != "EUR" || credit.Amount != 8511 {
			t.Fatalf("credited %s %d, want EUR 8511", credit.Currency, credit.Amount)
		}
		if !reflect.DeepEqual(d["originalAmount"], map[string]any{"currency": "NOK", "amount": "1000.00"}) || d["endToEndIdentification"] != "e2e-42" {
			t.Errorf("credit details %v", d)
		}
		ex, _ := d["currencyExchange"].([]any)
		if len(ex) != 1 || ex[0].(map[string]any)["exchangeRate"] != "0.08510638" || ex[0].(map[string]any)["targetCurrency"] != "EUR" {
			t.Errorf("currencyExchange %v", d["currencyExchange"])
		}
		debit, d := h.newBooking(kariIBAN, kariBefore)
		if debit.Currency != "NOK" || debit.Amount != -100000 || d["currencyExchange"] != nil || d["originalAmount"] != nil {
			t.Errorf("debit %s %d %v", debit.Currency, debit.Amount, d)
		}
	})
}

// TestNoCurrencyConversionUnknownRate: a currency the bank does not
// exchange (not in the sandbox table) is refused at SCA: the PSU gets the
// failure redirect and the payment is rejected.
func TestNoCurrencyConversionUnknownRate(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		_, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/cross-border-credit-transfers", sid: "fx", body: crossBorderBody("XOF", "5000", kariIBAN)})
		id, _ := b["paymentId"].(string)
		q := h.authorise(scaLink(b), sandbox.KariNumber)
		if q.Get("code") != "PAYMENT_FAILED" || q.Get("psu-id") != "" {
			t.Fatalf("redirect %v", q)
		}
		h.wantStatus(id, pis.StatusRejected)
	})
}
