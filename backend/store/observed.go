package store

import (
	"context"
	"reflect"
	"time"
)

// Observed returns st with each of its operations timed: observe is told
// the operation (the method's name) and how long it took, whatever it
// returned. The operations of an Atomically view are timed too, and the
// Atomically call as a whole. observe runs on the caller's goroutine and
// must be cheap (a histogram's Observe).
func Observed(st Store, observe func(op string, took time.Duration)) Store {
	return observed{st: st, observe: observe}
}

// observed is Observed's Store. It embeds nothing, so each method is
// timed (TestObservedTimesEveryMethod): Atomically and Close are written
// below, every other one is generated from the Store interface into
// observed_methods.go.
//
//go:generate go run ./observedgen
type observed struct {
	st      Store
	observe func(op string, took time.Duration)
}

var _ Store = observed{}

// Operations are the names Observed tells observe: every method of Store
// but Close.
func Operations() []string {
	t := reflect.TypeFor[Store]()
	out := make([]string, 0, t.NumMethod())
	for i := range t.NumMethod() {
		if name := t.Method(i).Name; name != "Close" {
			out = append(out, name)
		}
	}
	return out
}

// took tells observe how long op took since start.
func (o observed) took(op string, start time.Time) {
	o.observe(op, time.Since(start))
}

// Atomically times the whole transaction, and each operation of fn on the
// view.
func (o observed) Atomically(ctx context.Context, fn func(Store) error) error {
	defer o.took("Atomically", time.Now())
	return o.st.Atomically(ctx, func(view Store) error {
		return fn(observed{st: view, observe: o.observe})
	})
}

// Close is not timed.
func (o observed) Close() error { return o.st.Close() }
