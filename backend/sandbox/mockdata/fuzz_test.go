package mockdata

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/strictjson/strictjsontest"
)

// checkFieldErrors asserts what every refusal must be: bounded, each with
// a "$" path and a short rule, and nothing in either that could not go
// into an error body or a log line as it is.
func checkFieldErrors(t *testing.T, errs []FieldError) {
	t.Helper()
	strictjsontest.CheckFieldErrors(t, errs)
}

// checkOutcome asserts that a parser returned a value or errors, never
// both nor neither.
func checkOutcome(t *testing.T, accepted bool, errs []FieldError) {
	t.Helper()
	if accepted == (len(errs) > 0) {
		t.Fatalf("accepted %v with %d errors", accepted, len(errs))
	}
	checkFieldErrors(t, errs)
}

// latestCivilDate is the latest date an accepted date can carry at
// testNow: a date-time in the past written at offset +14:00 (the furthest
// ahead) may name the next day.
func latestCivilDate() string {
	return testNow.Add(clockSkew).In(time.FixedZone("", 14*3600)).Format(time.DateOnly)
}

func FuzzParseCardTransactions(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		txs, errs := ParseCardTransactions(body, testNow)
		checkOutcome(t, txs != nil, errs)
		if txs == nil {
			return
		}
		latest := latestCivilDate()
		for _, tx := range txs {
			if !civildate.Valid(tx.BookingDate) || !civildate.Valid(tx.TransactionDate) || tx.BookingDate > tx.TransactionDate ||
				tx.TransactionDate > latest || !validMaskedPAN(tx.MaskedPAN) ||
				// The country may be left out (the tooling does), never wrong.
				(tx.CardAcceptorAddress.Country != "" && !codelists.ValidCountry(tx.CardAcceptorAddress.Country)) ||
				!codelists.ValidCurrency(tx.TransactionAmount.Currency) || !codelists.ValidCurrency(tx.OriginalAmount.Currency) {
				t.Fatalf("accepted an invalid transaction: %+v", tx)
			}
		}
		out, err := CardTransactionsResponse(txs[0].MaskedPAN, txs)
		if err != nil {
			t.Fatalf("accepted transactions do not make a response: %v", err)
		}
		var resp struct {
			CardAccount      struct{ MaskedPan string }
			CardTransactions struct {
				Booked []struct {
					CardTransactionID string
					TransactionAmount struct {
						Currency string
						Amount   int32
					}
				}
				Pending []string
			}
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("response is not JSON: %v", err)
		}
		if len(resp.CardTransactions.Booked) != len(txs) || resp.CardTransactions.Pending == nil {
			t.Fatalf("response has %d booked of %d", len(resp.CardTransactions.Booked), len(txs))
		}
		for i, b := range resp.CardTransactions.Booked {
			m, err := money.FromWhole(int64(b.TransactionAmount.Amount), b.TransactionAmount.Currency)
			if err != nil || b.CardTransactionID != txs[i].CardTransactionID || m != txs[i].TransactionAmount.Minor {
				t.Fatalf("booked %d does not round-trip: %+v vs %+v", i, b, txs[i])
			}
		}
	})
}

func FuzzParseCustomer(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		c, errs := ParseCustomer(body, testNow)
		checkOutcome(t, c != Customer{}, errs)
		if errs == nil && (!validCustomerNumber(c.Number) || c.Type != CustomerPrivate && c.Type != CustomerCorporate) {
			t.Fatalf("accepted %+v", c)
		}
	})
}

func FuzzParseAccount(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		a, errs := ParseAccount(body, testNow)
		checkOutcome(t, a.CustomerNumber != "", errs)
		if errs != nil {
			return
		}
		if !mockBBAN(a.BBAN) || !bankaccount.ValidIBANCheckDigits(a.IBAN) || a.IBAN != bankaccount.IBAN("NO", a.BBAN) || !codelists.ValidCurrency(a.Currency) ||
			a.CreditLine.Minor < 0 || a.CreditLine.Currency != a.Currency {
			t.Fatalf("accepted %+v", a)
		}
		for _, b := range a.Balances {
			if canonical(b.Type, accountBalanceTypes) != b.Type || !codelists.ValidCurrency(b.Amount.Currency) {
				t.Fatalf("accepted balance %+v", b)
			}
		}
	})
}

func FuzzParseCardAccount(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		a, errs := ParseCardAccount(body, testNow)
		checkOutcome(t, a.CustomerNumber != "", errs)
		if errs != nil {
			return
		}
		if !validMaskedPAN(a.MaskedPAN) || a.CreditLimit.Currency != a.Currency || a.CreditLimit.Minor < 0 ||
			canonical(a.Status, cardAccountStatuses) != a.Status {
			t.Fatalf("accepted %+v", a)
		}
		for _, b := range a.Balances {
			if b.Type != "expected" && b.Type != "authorised" {
				t.Fatalf("accepted balance %+v", b)
			}
		}
	})
}

func FuzzParseAccountTransactions(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		txs, errs := ParseAccountTransactions(body, testNow)
		checkOutcome(t, txs != nil, errs)
		latest := latestCivilDate()
		for _, tx := range txs {
			if !civildate.Valid(tx.BookingDate) || !civildate.Valid(tx.ValueDate) || tx.BookingDate > latest || tx.ValueDate > latest ||
				!codelists.ValidCurrency(tx.Amount.Currency) {
				t.Fatalf("accepted %+v", tx)
			}
			for _, r := range []*AccountReference{tx.CreditorAccount, tx.DebtorAccount} {
				if r != nil && r.IBAN == "" && r.BBAN == "" {
					t.Fatalf("accepted an empty account reference in %+v", tx)
				}
			}
		}
	})
}

func FuzzParseAgreement(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		a, errs := ParseAgreement(body, testNow)
		checkOutcome(t, a.Owner != "", errs)
		for _, e := range a.Engagements {
			if len(e.Roles) == 0 || len(e.Roles) > 2 || e.Account.IBAN == "" && e.Account.BBAN == "" {
				t.Fatalf("accepted engagement %+v", e)
			}
		}
	})
}
