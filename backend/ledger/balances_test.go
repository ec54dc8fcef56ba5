package ledger

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/store"
)

var ctx = context.Background()

// account opens a SQLite store with one customer's account of kind.
func account(t *testing.T, kind store.AccountKind) (store.Store, *store.Account) {
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &store.Customer{Number: "01017012345", Name: "Kari", Type: store.CustomerPrivate}
	if err := st.CreateCustomer(ctx, c); err != nil {
		t.Fatal(err)
	}
	a := &store.Account{CustomerID: c.ID, Kind: kind, Name: "Brukskonto", Currency: "NOK", IBAN: "NO9386011117947"}
	if kind == store.KindCardAccount {
		a.IBAN, a.MaskedPAN = "", "123456******1234"
	}
	if err := st.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	return st, a
}

// booked is the sum of a's booked transactions and its balances by type.
func booked(t *testing.T, st store.Store, a *store.Account) (int64, map[string]int64) {
	txs, _, err := st.ListTransactions(ctx, a.ID, store.TransactionFilter{Booked: true})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, tx := range txs {
		sum += tx.Amount
	}
	bs, err := st.ListBalances(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int64{}
	for _, b := range bs {
		by[b.Type] = b.Amount
	}
	return sum, by
}

func TestBookedTarget(t *testing.T) {
	if _, sent, e := BookedTarget([]store.Balance{{Type: "expected", Amount: 5}}, "$.balances"); e != nil || sent {
		t.Fatalf("no booked balance: sent %v, %v", sent, e)
	}
	target, sent, e := BookedTarget([]store.Balance{{Type: "interimBooked", Amount: 7}, {Type: "closingBooked", Amount: 7}}, "$.balances")
	if e != nil || !sent || target != 7 {
		t.Fatalf("two equal booked balances: %d %v %v", target, sent, e)
	}
	_, _, e = BookedTarget([]store.Balance{{Type: "closingBooked", Amount: 7}, {Type: "expected"}, {Type: "interimBooked", Amount: 8}}, "$.balances")
	if e == nil || e.Path != "$.balances[2].balanceAmount.amount" {
		t.Fatalf("two booked balances that differ: %+v", e)
	}
}

// TestSetBalancesBooksTheDifference: a booked balance set on an account
// is booked as a transaction, "Opening balance" when it opens, "Balance
// adjustment" later, so that the booked balance stays the sum of the
// booked transactions; the other balances are kept as sent.
func TestSetBalancesBooksTheDifference(t *testing.T) {
	st, a := account(t, store.KindAccount)
	now := time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC)
	if err := SetBalances(ctx, st, a, []store.Balance{{Type: "closingBooked", Amount: 100000, Currency: "NOK"}, {Type: "expected", Amount: 90000, Currency: "NOK"}}, true, now); err != nil {
		t.Fatal(err)
	}
	sum, by := booked(t, st, a)
	if sum != 100000 || by["closingBooked"] != 100000 || by["expected"] != 90000 {
		t.Fatalf("opening: booked %d, balances %v", sum, by)
	}
	if err := SetBalances(ctx, st, a, []store.Balance{{Type: "closingBooked", Amount: 150000, Currency: "NOK"}}, false, now); err != nil {
		t.Fatal(err)
	}
	sum, by = booked(t, st, a)
	if sum != 150000 || by["closingBooked"] != 150000 {
		t.Fatalf("adjustment: booked %d, balances %v", sum, by)
	}
	txs, _, _ := st.ListTransactions(ctx, a.ID, store.TransactionFilter{Booked: true})
	if len(txs) != 2 || txs[0].BookingDate != "2026-11-30" {
		t.Fatalf("booked %d transactions, the newest on %s: want 2, on Oslo's date 2026-11-30", len(txs), txs[0].BookingDate)
	}
	// No booked balance sent: the booked balance stays as it is.
	if err := SetBalances(ctx, st, a, []store.Balance{{Type: "expected", Amount: 1, Currency: "NOK"}}, false, now); err != nil {
		t.Fatal(err)
	}
	if sum, by = booked(t, st, a); sum != 150000 || by["closingBooked"] != 150000 || by["expected"] != 1 {
		t.Fatalf("without a booked balance: booked %d, balances %v", sum, by)
	}
}

// TestMoveAddsToEveryBalance: transactions just booked move every
// balance of the account; an account without balances gets closingBooked
// and expected (a card account: expected only).
func TestMoveAddsToEveryBalance(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, kind := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		st, a := account(t, kind)
		txs := []store.Transaction{{Booked: true, Amount: -2500, Currency: "NOK", BookingDate: "2026-11-29"}, {Booked: true, Amount: 1000, Currency: "NOK", BookingDate: "2026-11-29"}}
		if err := st.AddTransactions(ctx, a.ID, txs); err != nil {
			t.Fatal(err)
		}
		if err := Move(ctx, st, a, txs, now); err != nil {
			t.Fatal(err)
		}
		_, by := booked(t, st, a)
		want := map[string]int64{"closingBooked": -1500, "expected": -1500}
		if kind == store.KindCardAccount {
			want = map[string]int64{"expected": -1500}
		}
		if len(by) != len(want) {
			t.Fatalf("%v: balances %v, want %v", kind, by, want)
		}
		for k, v := range want {
			if by[k] != v {
				t.Fatalf("%v: balances %v, want %v", kind, by, want)
			}
		}
		if err := Move(ctx, st, a, []store.Transaction{{Booked: true, Amount: 500}}, now); err != nil {
			t.Fatal(err)
		}
		if _, by = booked(t, st, a); by["expected"] != -1000 {
			t.Fatalf("%v: a second move: %v", kind, by)
		}
	}
}
