// Package ledger keeps an account's balances with its booked transactions:
// the booked balance is their sum, and booking a transaction moves every
// balance (issue 29, 7). Settlement, the operator's import and the
// sandbox's mock data all book through it.
package ledger

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// An account's booked balance matches its booked transactions (issue 29,
// 7; the description's release 1.21.21: "the booked balance matches the
// booked transaction list"). closingBooked, and interimBooked when the
// account has one, are the sum of the account's booked transactions: every
// account reports closingBooked, whatever balances it was created with,
// and booking a transaction moves it. Mock data that sets a booked balance
// (an account's creation, PUT …/balances, PUT of the account) does so by
// booking the difference as a transaction dated today, "Opening balance"
// on a new account, "Balance adjustment" later, so that the list still
// adds up to the balance. A card account has no booked balance (expected
// and authorised only, contract section 10).

// Store is what the ledger reads and writes: the operations of the
// backend's store it uses (a store.Store, or a transaction's).
type Store interface {
	ListBalances(ctx context.Context, accountID string) ([]store.Balance, error)
	SetBalances(ctx context.Context, accountID string, bs []store.Balance) error
	ListTransactions(ctx context.Context, accountID string, f store.TransactionFilter) ([]store.Transaction, int, error)
	AddTransactions(ctx context.Context, accountID string, txs []store.Transaction) error
}

// bookedTypes are the balance types that are the sum of the booked
// transactions.
var bookedTypes = []string{"closingBooked", "interimBooked"}

func isBooked(balanceType string) bool {
	return balanceType == bookedTypes[0] || balanceType == bookedTypes[1]
}

// BookedTarget is the booked balance mock data asks for: that of
// closingBooked or interimBooked among bs (both must agree), and whether
// one was sent. path names bs in the request body, for the error.
func BookedTarget(bs []store.Balance, path string) (int64, bool, *bgerror.Error) {
	var target int64
	found := -1
	for i, b := range bs {
		if !isBooked(b.Type) {
			continue
		}
		if found >= 0 && b.Amount != target {
			return 0, false, bgerror.Format(path+"["+strconv.Itoa(i)+"].balanceAmount.amount",
				"differs from "+bs[found].Type+"'s: both are the sum of the account's booked transactions, so they are equal; send one of them")
		}
		found, target = i, b.Amount
	}
	return target, found >= 0, nil
}

// SetBalances replaces account a's balances with bs, keeping its booked
// balance the sum of its booked transactions: a booked balance among bs
// books the difference as a transaction, "Opening balance" when opening
// (the account is new), else "Balance adjustment";
// none keeps the booked balance as it is. A card account's balances are
// set as they are. bs has passed BookedTarget.
func SetBalances(ctx context.Context, tx Store, a *store.Account, bs []store.Balance, opening bool, now time.Time) error {
	if a.Kind == store.KindCardAccount {
		return tx.SetBalances(ctx, a.ID, bs)
	}
	target, sent, e := BookedTarget(bs, "$.balances")
	if e != nil {
		return e
	}
	sum, err := bookedSum(ctx, tx, a)
	if err != nil {
		return err
	}
	if !sent {
		target = sum
	}
	if diff := target - sum; diff != 0 {
		text := "Balance adjustment"
		if opening {
			text = "Opening balance"
		}
		details, _ := json.Marshal(map[string]any{"remittanceInformationUnstructured": text, "remittanceInformationUnstructuredArray": []string{text}})
		today := civildate.Today(now)
		if err := tx.AddTransactions(ctx, a.ID, []store.Transaction{{Booked: true, Amount: diff, Currency: a.Currency,
			BookingDate: today, ValueDate: today, Details: details}}); err != nil {
			return err
		}
	}
	out := make([]store.Balance, 0, len(bs)+1)
	if !hasBalance(bs, "closingBooked") {
		out = append(out, store.Balance{Type: "closingBooked", Amount: target, Currency: a.Currency, ReferenceDate: civildate.Today(now), LastChange: now})
	}
	for _, b := range bs {
		if isBooked(b.Type) {
			b.Amount = target
		}
		out = append(out, b)
	}
	return tx.SetBalances(ctx, a.ID, out)
}

// bookedSum is the sum of account a's booked transactions: its
// closingBooked, which SetBalances and Move keep equal to it, or
// the transactions added up when it has none.
func bookedSum(ctx context.Context, st Store, a *store.Account) (int64, error) {
	bs, err := st.ListBalances(ctx, a.ID)
	if err != nil {
		return 0, err
	}
	for _, b := range bs {
		if b.Type == "closingBooked" {
			return b.Amount, nil
		}
	}
	txs, _, err := st.ListTransactions(ctx, a.ID, store.TransactionFilter{Booked: true})
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, t := range txs {
		if t.Booked {
			sum += t.Amount
		}
	}
	return sum, nil
}

// Move adds the amounts of txs, just booked on account a, to every
// balance of the account. An account without closingBooked gets one, the
// sum of its booked transactions (txs included); an account without
// balances gets closingBooked and expected (a card account: expected).
func Move(ctx context.Context, st Store, a *store.Account, txs []store.Transaction, now time.Time) error {
	var sum int64
	for _, t := range txs {
		sum += t.Amount
	}
	bs, err := st.ListBalances(ctx, a.ID)
	if err != nil {
		return err
	}
	today := civildate.Today(now)
	switch {
	case len(bs) == 0 && a.Kind == store.KindCardAccount:
		bs = []store.Balance{{Type: "expected", Currency: a.Currency}}
	case len(bs) == 0:
		bs = []store.Balance{{Type: "closingBooked", Currency: a.Currency}, {Type: "expected", Currency: a.Currency}}
	case a.Kind != store.KindCardAccount && !hasBalance(bs, "closingBooked"):
		booked, err := bookedSum(ctx, st, a)
		if err != nil {
			return err
		}
		// bs is moved by sum below; booked already counts txs.
		bs = append([]store.Balance{{Type: "closingBooked", Amount: booked - sum, Currency: a.Currency}}, bs...)
	}
	for i := range bs {
		bs[i].Amount += sum
		bs[i].LastChange = now
		bs[i].ReferenceDate = today
	}
	return st.SetBalances(ctx, a.ID, bs)
}

func hasBalance(bs []store.Balance, balanceType string) bool {
	for _, b := range bs {
		if b.Type == balanceType {
			return true
		}
	}
	return false
}
