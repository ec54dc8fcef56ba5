package backend

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
		if canMove(tc.from, tc.to) != tc.ok {
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

// TestMovePaymentConsultsTheTable: a change the table does not list is
// refused before the store is asked, and the payment keeps its status.
func TestMovePaymentConsultsTheTable(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		p := &store.Payment{ID: "not-stored", Status: StatusSettled}
		if err := movePayment(context.Background(), h.st, p, StatusCancelled); !errors.Is(err, errTransition) || p.Status != StatusSettled {
			t.Fatalf("ACSC to CANC: %v, status %s", err, p.Status)
		}
	})
}

// transitionGuard is the store the backend tests give the server: every
// status change it writes must be one the table lists, so a test fails
// when code moves a payment around movePayment or the table.
type transitionGuard struct {
	store.Store
	t *testing.T
}

func (g transitionGuard) UpdatePayment(ctx context.Context, p *store.Payment, from string) error {
	if p.Status != from && !canMove(from, p.Status) {
		g.t.Errorf("payment %s moved %s -> %s, which the transition table does not list", p.ID, from, p.Status)
	}
	return g.Store.UpdatePayment(ctx, p, from)
}

func (g transitionGuard) Atomically(ctx context.Context, fn func(store.Store) error) error {
	return g.Store.Atomically(ctx, func(tx store.Store) error { return fn(transitionGuard{Store: tx, t: g.t}) })
}

// TestPaymentReadDropsEmptyStrings (issue 29, 12): a payment read does not
// echo the optional members the TPP sent empty.
func TestPaymentReadDropsEmptyStrings(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + InstantProduct, sid: "e",
			body: paymentBody("5.00", kariIBAN, olaIBAN, `,"endToEndIdentification":"","remittanceInformationUnstructured":""`)})
		if status != 201 {
			t.Fatalf("payment: %d %v", status, b)
		}
		_, got, _ := h.call(tppCall{method: "GET", path: "/v1/payments/" + InstantProduct + "/" + b["paymentId"].(string)})
		for _, k := range []string{"endToEndIdentification", "remittanceInformationUnstructured"} {
			if _, ok := got[k]; ok {
				t.Errorf("the read echoes %s empty: %v", k, got)
			}
		}
		if got["creditorName"] != "Mottaker AS" {
			t.Errorf("the read: %v", got)
		}
	})
}
