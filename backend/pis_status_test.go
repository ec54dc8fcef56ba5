package backend

import (
	"context"
	"testing"

	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/store"
)

// transitionGuard is the store the backend tests give the server: every
// status change it writes must be one the table lists, so a test fails
// when code moves a payment around the table (pis.CanMove).
type transitionGuard struct {
	store.Store
	t *testing.T
}

func (g transitionGuard) UpdatePayment(ctx context.Context, p *store.Payment, from string) error {
	if p.Status != from && !pis.CanMove(from, p.Status) {
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
		status, b, _ := h.call(tppCall{method: "POST", path: "/v1/payments/" + pis.InstantProduct, sid: "e",
			body: paymentBody("5.00", kariIBAN, olaIBAN, `,"endToEndIdentification":"","remittanceInformationUnstructured":""`)})
		if status != 201 {
			t.Fatalf("payment: %d %v", status, b)
		}
		_, got, _ := h.call(tppCall{method: "GET", path: "/v1/payments/" + pis.InstantProduct + "/" + b["paymentId"].(string)})
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
