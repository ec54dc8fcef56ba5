package pis

import (
	"context"
	"errors"
	"testing"

	"github.com/obgw/obgw/backend/store"
)

func TestPaymentTransitions(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{StatusReceived, StatusAccepted, true},
		{StatusReceived, StatusSettled, false},
		{StatusAccepted, StatusSettlementInProcess, true},
		{StatusSettled, StatusCancelled, false},
		{StatusCancelled, StatusAccepted, false},
		{StatusRejected, StatusAccepted, false},
		{StatusAcceptedCustomerProfile, StatusSettlementInProcess, true},
		{StatusReceived, StatusHold, true},
		{StatusHold, StatusPending, true},
		{StatusHold, StatusSettled, false},
		{StatusSettlementInProcess, StatusHold, false},
	} {
		if CanMove(tc.from, tc.to) != tc.ok {
			t.Errorf("%s -> %s: %v", tc.from, tc.to, !tc.ok)
		}
	}
	final := func(s string) bool { return len(paymentTransitions[s]) == 0 }
	for _, s := range []string{StatusSettled, StatusRejected, StatusCancelled} {
		if !final(s) {
			t.Errorf("%s not final", s)
		}
	}
	if final(StatusReceived) || final(StatusHold) {
		t.Error("a live status is final")
	}
}

// refusedWriter fails the test when a payment is written.
type refusedWriter struct{ t *testing.T }

func (w refusedWriter) UpdatePayment(context.Context, *store.Payment, string) error {
	w.t.Fatal("the store was asked to write a change the table does not list")
	return nil
}

// TestMovePaymentConsultsTheTable: a change the table does not list is
// refused before the store is asked, and the payment keeps its status.
func TestMovePaymentConsultsTheTable(t *testing.T) {
	p := &store.Payment{ID: "not-stored", Status: StatusSettled}
	if err := movePayment(context.Background(), refusedWriter{t}, p, StatusCancelled); !errors.Is(err, errTransition) || p.Status != StatusSettled {
		t.Fatalf("ACSC to CANC: %v, status %s", err, p.Status)
	}
}

func TestNeedsCancellationSCA(t *testing.T) {
	for status, want := range map[string]bool{
		StatusReceived: false, StatusAccepted: true, StatusPending: true, StatusAcceptedCustomerProfile: true, StatusHold: true,
		StatusSettlementInProcess: false, StatusSettled: false, StatusRejected: false, StatusCancelled: false,
	} {
		if got := needsCancellationSCA(status); got != want {
			t.Errorf("%s: %v, want %v", status, got, want)
		}
	}
}

// TestBasketWorstCaseEveryPair (issue 14, 6): the basket's status for
// every pair of payment statuses: RJCT when either was rejected or
// cancelled, RCVD while none is authorised, PATC for authorised with
// awaiting, ACTC when both are authorised.
func TestBasketWorstCaseEveryPair(t *testing.T) {
	class := map[string]string{
		StatusReceived: "awaiting", StatusRejected: "rejected", StatusCancelled: "rejected",
		StatusAccepted: "authorised", StatusPending: "authorised", StatusAcceptedCustomerProfile: "authorised",
		StatusSettlementInProcess: "authorised", StatusSettled: "authorised", StatusHold: "authorised",
	}
	want := map[[2]string]string{
		{"awaiting", "awaiting"}: "RCVD", {"awaiting", "authorised"}: "PATC", {"authorised", "authorised"}: "ACTC",
		{"rejected", "awaiting"}: "RJCT", {"rejected", "authorised"}: "RJCT", {"rejected", "rejected"}: "RJCT",
	}
	for a, ca := range class {
		for b, cb := range class {
			w, ok := want[[2]string{ca, cb}]
			if !ok {
				w = want[[2]string{cb, ca}]
			}
			got := basketStatus(&store.Basket{Status: basketReceived}, []*store.Payment{{Status: a}, {Status: b}})
			if got != w {
				t.Errorf("%s + %s: %s, want %s", a, b, got, w)
			}
		}
	}
	if got := basketStatus(&store.Basket{Status: basketReceived}, []*store.Payment{{Status: StatusAccepted}}); got != "ACTC" {
		t.Errorf("one authorised payment: %s", got)
	}
}
