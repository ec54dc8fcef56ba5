package store

import (
	"errors"
	"testing"
)

// TestAtomicallyAndDeleteSandbox: a sandbox reset (DeleteSandbox and the
// new data set in one Atomically) lands whole or not at all, and touches
// no other TPP's sandbox nor the bank's own customers; each sandbox holds
// the same customer and account numbers as the others.
func TestAtomicallyAndDeleteSandbox(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		const a, b = "PSDNO-FSA-A", "PSDNO-FSA-B"
		made := map[string]*Customer{}
		for _, owner := range []string{a, b, ""} {
			c := &Customer{Owner: owner, Number: "01017012345", Name: "Kari", Type: CustomerPrivate}
			wantErr(t, "CreateCustomer "+owner, s.CreateCustomer(ctx, c), nil)
			acc := mustAccount(t, s, c.ID, "NO9312345678903")
			if acc.Owner != owner {
				t.Fatalf("account of %q's customer owned by %q", owner, acc.Owner)
			}
			made[owner] = c
		}
		wantErr(t, "the same number twice in one sandbox",
			s.CreateCustomer(ctx, &Customer{Owner: a, Number: "01017012345", Name: "Again", Type: CustomerPrivate}), ErrConflict)
		wantErr(t, "the same IBAN twice in one sandbox", s.CreateAccount(ctx, &Account{CustomerID: made[a].ID, Kind: KindAccount,
			Name: "x", Product: "x", CashAccountType: "CACC", Currency: "NOK", IBAN: "NO9312345678903", BBAN: "x"}), ErrConflict)
		for owner, c := range made {
			got, err := s.GetCustomerByNumber(ctx, owner, "01017012345")
			if err != nil || got.ID != c.ID || got.Owner != owner {
				t.Fatalf("customer by number in %q: %+v, %v; want %s", owner, got, err, c.ID)
			}
			acc, err := s.GetAccountByNumber(ctx, owner, "NO9312345678903", "")
			if err != nil || acc.CustomerID != c.ID {
				t.Fatalf("account by number in %q: %+v, %v", owner, acc, err)
			}
		}
		if _, err := s.GetCustomerByNumber(ctx, "PSDNO-FSA-C", "01017012345"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a customer of another sandbox found: %v", err)
		}
		pa := &Payment{TPP: a, RequestID: "r1", Kind: PaymentSingle, Product: "domestic-norway-credit-transfers", Amount: 1,
			Currency: "NOK", ExecutionDate: "2026-11-01", Body: []byte(`{}`), Status: "RCVD"}
		pb := &Payment{TPP: b, RequestID: "r1", Kind: PaymentSingle, Product: pa.Product, Amount: 1,
			Currency: "NOK", ExecutionDate: "2026-11-01", Body: []byte(`{}`), Status: "RCVD"}
		wantErr(t, "payment of A", s.CreatePayment(ctx, pa), nil)
		wantErr(t, "payment of B", s.CreatePayment(ctx, pb), nil)

		// A failing fn leaves nothing behind.
		boom := errors.New("boom")
		err := s.Atomically(ctx, func(tx Store) error {
			if err := tx.DeleteSandbox(ctx, a); err != nil {
				return err
			}
			if err := tx.CreateCustomer(ctx, &Customer{Owner: a, Number: "999", Name: "New", Type: CustomerPrivate}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Atomically = %v, want boom", err)
		}
		if _, err := s.GetCustomer(ctx, made[a].ID); err != nil {
			t.Fatalf("rolled-back delete removed the customer: %v", err)
		}
		if _, err := s.GetCustomerByNumber(ctx, a, "999"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("rolled-back create is visible: %v", err)
		}

		// A succeeding fn lands whole, in A's sandbox only.
		err = s.Atomically(ctx, func(tx Store) error {
			if err := tx.DeleteSandbox(ctx, a); err != nil {
				return err
			}
			return tx.CreateCustomer(ctx, &Customer{Owner: a, Number: "999", Name: "New", Type: CustomerPrivate})
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := s.ListCustomers(ctx, a)
		if len(cs) != 1 || cs[0].Number != "999" {
			t.Fatalf("A after reset: %+v", cs)
		}
		if _, err := s.GetCustomer(ctx, made[a].ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("A's old customer still there: %v", err)
		}
		if _, err := s.GetPayment(ctx, pa.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("A's payment still there: %v", err)
		}
		for _, owner := range []string{b, ""} {
			if cs, _ := s.ListCustomers(ctx, owner); len(cs) != 1 || cs[0].ID != made[owner].ID {
				t.Fatalf("%q after A's reset: %+v", owner, cs)
			}
		}
		if _, err := s.GetPayment(ctx, pb.ID); err != nil {
			t.Fatalf("B's payment after A's reset: %v", err)
		}
		wantErr(t, "DeleteSandbox of the bank's own customers", s.DeleteSandbox(ctx, ""), ErrInvalid)

		// A sandbox is claimed once.
		for i, want := range []bool{true, false} {
			created, err := s.ClaimSandbox(ctx, a)
			if err != nil || created != want {
				t.Fatalf("claim %d: %v, %v; want %v", i, created, err, want)
			}
		}
	})
}
