package backend

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// importDocument is a bank's data as an operator imports it: a private
// customer with an account and a card account, a corporate customer whose
// agreement engages the private one, and booked transactions of both
// accounts. edits replace parts of it by their names.
func importDocument(edits map[string]string) string {
	parts := map[string]string{
		"kariName":     "Kari Import",
		"product":      "Brukskonto",
		"closing":      "1000",
		"engagedRoles": `["VIEW"]`,
		"accountTx": `{"amount":-200,"currency":"NOK","bookingDate":"2026-11-01","entryReference":"E1","remittanceInformationUnstructured":"Husleie"},` +
			`{"amount":50,"currency":"NOK","bookingDate":"2026-11-02","entryReference":"E2","debtorName":"Ola"}`,
	}
	for k, v := range edits {
		parts[k] = v
	}
	return `{
  "customers": [
    {"customerNumber":"55555555555","name":"` + parts["kariName"] + `","type":"private"},
    {"customerNumber":"910000099","name":"Import AS","type":"corporate"}
  ],
  "accounts": [
    {"customerNumber":"55555555555","accountName":"Brukskonto","bban":"86011117947","currency":"NOK","product":"` + parts["product"] + `",
     "balances":[{"balanceType":"closingBooked","balanceAmount":{"amount":` + parts["closing"] + `,"currency":"NOK"}},{"balanceType":"expected","balanceAmount":{"amount":` + parts["closing"] + `,"currency":"NOK"}}]},
    {"customerNumber":"910000099","accountName":"Drift","bban":"86011117963","currency":"NOK","product":"Bedrift"}
  ],
  "cardAccounts": [
    {"customerNumber":"55555555555","maskedPan":"5412xxxxxxxx9999","currency":"NOK","creditLimit":{"currency":"NOK","amount":5000},
     "cardId":"C1","cardIdVNo":"1","accountNumber":"99998888777","expiry":"2029-01-01","name":"Kort","product":"Kreditt","status":"ENABLED",
     "balances":[{"balanceType":"expected","balanceAmount":{"amount":-100,"currency":"NOK"}}]}
  ],
  "agreements": [
    {"owner":"910000099","name":"Import drift","engagements":[{"customer":"55555555555","account":{"bban":"86011117963"},"roles":` + parts["engagedRoles"] + `}]}
  ],
  "transactions": [
    {"bban":"86011117947","booked":[` + parts["accountTx"] + `]},
    {"maskedPan":"5412xxxxxxxx9999","customerNumber":"55555555555","booked":[` + cardTx(map[string]string{"cardTransactionId": `"K1"`, "maskedPan": `""`}) + `]}
  ]
}`
}

// TestImport (issue 32, 4): the operator's import puts the bank's own
// data where production serves it from; the same document again changes
// nothing; a changed one updates what changed and books only new
// transactions; a document that breaks a rule names the field and
// changes nothing.
func TestImport(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		now := time.Now()
		r, err := Import(ctx, h.st, []byte(importDocument(nil)), now)
		if err != nil {
			t.Fatal(err)
		}
		if r.Customers.Created != 2 || r.Accounts.Created != 2 || r.CardAccounts.Created != 1 || r.Agreements.Created != 1 || r.Transactions.Booked != 3 {
			t.Fatalf("first import: %+v", r)
		}
		kari, err := h.st.GetCustomerByNumber(ctx, "", "55555555555")
		if err != nil || kari.Name != "Kari Import" || kari.Owner != "" {
			t.Fatalf("customer: %+v %v", kari, err)
		}
		acc, err := h.st.GetAccountByNumber(ctx, "", "", "86011117947")
		if err != nil {
			t.Fatal(err)
		}
		// closingBooked is what the document says, after its
		// transactions; the rest of the history is one opening booking.
		booked := func() (int, int64, int64) {
			txs, _, _ := h.st.ListTransactions(ctx, acc.ID, store.TransactionFilter{Booked: true})
			var sum int64
			for _, tx := range txs {
				sum += tx.Amount
			}
			bs, _ := h.st.ListBalances(ctx, acc.ID)
			return len(txs), sum, bs[0].Amount
		}
		if n, sum, closing := booked(); n != 3 || sum != 100000 || closing != 100000 {
			t.Fatalf("after the first import: %d booked adding up to %d, closingBooked %d; want 3, 100000, 100000", n, sum, closing)
		}

		again, err := Import(ctx, h.st, []byte(importDocument(nil)), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if again.Customers.Unchanged != 2 || again.Accounts.Unchanged != 2 || again.CardAccounts.Unchanged != 1 || again.Agreements.Unchanged != 1 ||
			again.Transactions.Booked != 0 || again.Transactions.AlreadyBooked != 3 {
			t.Fatalf("the same document again: %+v", again)
		}
		if n, sum, closing := booked(); n != 3 || sum != 100000 || closing != 100000 {
			t.Fatalf("after the same import again: %d booked adding up to %d, closingBooked %d", n, sum, closing)
		}

		changed, err := Import(ctx, h.st, []byte(importDocument(map[string]string{
			"kariName":     "Kari Nordmann",
			"product":      "Brukskonto Pluss",
			"closing":      "900",
			"engagedRoles": `["VIEW","REGISTER"]`,
			"accountTx": `{"amount":-200,"currency":"NOK","bookingDate":"2026-11-01","entryReference":"E1","remittanceInformationUnstructured":"Husleie"},` +
				`{"amount":50,"currency":"NOK","bookingDate":"2026-11-02","entryReference":"E2","debtorName":"Ola"},` +
				`{"amount":-100,"currency":"NOK","bookingDate":"2026-11-03","entryReference":"E3"}`,
		})), now.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if changed.Customers.Updated != 1 || changed.Accounts.Updated != 1 || changed.Agreements.Updated != 1 ||
			changed.Transactions.Booked != 1 || changed.Transactions.AlreadyBooked != 3 {
			t.Fatalf("a changed document: %+v", changed)
		}
		// E3 (-100) is all the change of the booked balance: nothing else
		// is booked.
		if n, sum, closing := booked(); n != 4 || sum != 90000 || closing != 90000 {
			t.Fatalf("after the changed import: %d booked adding up to %d, closingBooked %d; want 4, 90000, 90000", n, sum, closing)
		}
		ags, _ := h.st.ListAgreementsOf(ctx, kari.ID)
		if len(ags) != 1 || len(ags[0].Engagements) != 1 || len(ags[0].Engagements[0].Roles) != 2 {
			t.Fatalf("the agreement after the changed import: %+v", ags)
		}

		for _, tc := range []struct{ name, doc, path string }{
			{"no entryReference", importDocument(map[string]string{"kariName": "Changed", "accountTx": `{"amount":-1,"currency":"NOK","bookingDate":"2026-11-01"}`}),
				"$.transactions[0].booked[0].entryReference"},
			{"a broken customer", strings.Replace(importDocument(map[string]string{"kariName": "Changed"}), `"type":"corporate"`, `"type":"company"`, 1),
				"$.customers[1].type"},
			{"an unknown member", `{"customers":[],"payments":[]}`, "$.payments"},
			{"an unknown owner", `{"accounts":[{"customerNumber":"66666666666","accountName":"X","bban":"86011117971","currency":"NOK"}]}`,
				"$.accounts[0].customerNumber"},
			{"another account's transactions", `{"transactions":[{"bban":"86011117947","booked":[{"amount":-1,"currency":"NOK","bookingDate":"2026-11-01","entryReference":"X","debtorAccount":{"bban":"12031010010"}}]}]}`,
				"$.transactions[0].booked[0].debtorAccount"},
		} {
			_, err := Import(ctx, h.st, []byte(tc.doc), now.Add(3*time.Hour))
			var rule *bgerror.Error
			if !errors.As(err, &rule) || rule.Path != tc.path {
				t.Fatalf("%s: %v, want a rule broken at %s", tc.name, err, tc.path)
			}
			// Nothing of the document was applied.
			if c, _ := h.st.GetCustomerByNumber(ctx, "", "55555555555"); c.Name != "Kari Nordmann" {
				t.Fatalf("%s: the customer became %q", tc.name, c.Name)
			}
		}
		// The bank's data is not a sandbox's: no TPP's sandbox sees it.
		if _, err := h.st.GetCustomerByNumber(ctx, testTPP, "55555555555"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the imported customer in a TPP's sandbox: %v", err)
		}
	})
}
