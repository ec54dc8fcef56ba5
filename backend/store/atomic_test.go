package store

import (
	"errors"
	"testing"
)

func TestAtomicallyAndDeleteAll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		mustAccount(t, s, c.ID, "NO9312345678903")

		// A failing fn leaves nothing behind.
		boom := errors.New("boom")
		err := s.Atomically(ctx, func(tx Store) error {
			if err := tx.DeleteAll(ctx); err != nil {
				return err
			}
			if err := tx.CreateCustomer(ctx, &Customer{Number: "999", Name: "New", Type: CustomerPrivate}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Atomically = %v, want boom", err)
		}
		if _, err := s.GetCustomer(ctx, c.ID); err != nil {
			t.Fatalf("rolled-back delete removed the customer: %v", err)
		}
		if _, err := s.GetCustomerByNumber(ctx, "999"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("rolled-back create is visible: %v", err)
		}

		// A succeeding fn lands whole.
		err = s.Atomically(ctx, func(tx Store) error {
			if err := tx.DeleteAll(ctx); err != nil {
				return err
			}
			return tx.CreateCustomer(ctx, &Customer{Number: "999", Name: "New", Type: CustomerPrivate})
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := s.ListCustomers(ctx)
		if len(cs) != 1 || cs[0].Number != "999" {
			t.Fatalf("after reset: %+v", cs)
		}
		if _, err := s.GetCustomer(ctx, c.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("old customer still there: %v", err)
		}
	})
}
