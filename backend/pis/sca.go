package pis

import (
	"context"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// What the SCA pages ask of a flow about payments: a payment's, a
// basket's or a payment cancellation's (store.PurposePayment,
// PurposeBasket, PurposeCancellation). Flows of other purposes are none
// of the service's: each method leaves them alone.

// Authorise does what flow f authorises: the payments of a payment or
// basket flow, or a payment's cancellation. It returns nil when all of it
// is done; else the outcome for the PSU, with authorised true when the
// SCA nevertheless took effect (every payment of a basket authorised, an
// instant one of them then not executed). Payments not authorised are
// rejected, unless the store failed: they then stay awaiting SCA.
func (s *Service) Authorise(ctx context.Context, f *store.SCAFlow) (outcome *bgerror.Error, authorised bool) {
	switch f.Purpose {
	case store.PurposePayment, store.PurposeBasket:
		outcome = s.authoriseFlow(ctx, f)
	case store.PurposeCancellation:
		outcome = s.cancelFlow(ctx, f)
	}
	return outcome, outcome == nil || outcome == outcomePartlyExecuted
}

// Withdrawn is the outcome of flow f when the TPP withdrew what it
// authorises (a basket it deleted: its payments stay awaiting SCA on
// their own), else nil.
func (s *Service) Withdrawn(ctx context.Context, f *store.SCAFlow) *bgerror.Error {
	if s.basketDeleted(ctx, f) {
		return outcomeBasketDeleted
	}
	return nil
}
