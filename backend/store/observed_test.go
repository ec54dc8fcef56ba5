package store

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestObservedTimesEveryMethod: each Store method of Observed's store
// tells observe its own name once, even when the store under it fails
// (here it panics); Close is not timed.
func TestObservedTimesEveryMethod(t *testing.T) {
	var got []string
	o := reflect.ValueOf(Observed(panicking{}, func(op string, _ time.Duration) { got = append(got, op) }))
	store := reflect.TypeFor[Store]()
	for i := range store.NumMethod() {
		m := store.Method(i)
		if m.Name == "Close" {
			continue
		}
		got = nil
		args := make([]reflect.Value, m.Type.NumIn())
		for j := range args {
			args[j] = reflect.Zero(m.Type.In(j))
		}
		args[0] = reflect.ValueOf(context.Background())
		func() {
			defer func() { _ = recover() }()
			if m.Type.IsVariadic() {
				o.MethodByName(m.Name).CallSlice(args)
			} else {
				o.MethodByName(m.Name).Call(args)
			}
		}()
		if !slices.Equal(got, []string{m.Name}) {
			t.Errorf("%s observed as %q", m.Name, got)
		}
	}
}

// panicking is a Store whose every method panics (a nil Store inside).
type panicking struct{ Store }

// TestObservedAtomically: the operations of an Atomically view are timed,
// and so is the transaction.
func TestObservedAtomically(t *testing.T) {
	st, err := Open(context.Background(), ":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got []string
	o := Observed(st, func(op string, took time.Duration) {
		if took <= 0 {
			t.Errorf("%s took %v", op, took)
		}
		got = append(got, op)
	})
	err = o.Atomically(context.Background(), func(tx Store) error {
		return tx.CreateCustomer(context.Background(), &Customer{Number: "01017012345", Name: "A", Type: CustomerPrivate})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CreateCustomer", "Atomically"}; !slices.Equal(got, want) {
		t.Fatalf("observed %q, want %q", got, want)
	}
}
