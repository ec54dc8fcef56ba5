package sca

import (
	"context"
	"net/http"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// The SCA as the concerns start and read it (ais.Flows, pis.Flows).

// Start stores a new pending flow of purpose for the request (startFlow).
func (s *Service) Start(ctx context.Context, r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	return s.startFlow(ctx, r, c, purpose, resourceID, anySession)
}

// Required is the 401 of code and text with the sealed scaRedirect of a
// new consent flow (scaRequired).
func (s *Service) Required(ctx context.Context, r *http.Request, c *tppcontext.Context, code, text string) *bgerror.Error {
	return s.scaRequired(ctx, r, c, code, text)
}

// New is the flow Start would store, for the caller to store in its own
// transaction; Started then counts it.
func (s *Service) New(r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	return s.newFlow(r, c, purpose, resourceID, anySession)
}

// Started counts a flow the caller stored (New) as started in the funnel.
func (s *Service) Started() { s.observeSCA(StepStarted, "") }

// Href is the link of flow id's SCA page for the request.
func (*Service) Href(r *http.Request, id string) string { return scaHref(r, id) }

// outcomeWithdrawn ends the SCA flow of a consent the TPP deleted before
// the PSU authorised it; the consent then reads terminatedByTpp.
var outcomeWithdrawn = bgerror.New(bgerror.CodeConsentInvalid, "The provider withdrew its request for your consent")

// Withdraw ends pending flow f as withdrawn by its TPP; store.ErrConflict
// when it was no longer pending.
func (s *Service) Withdraw(ctx context.Context, f *store.SCAFlow) error {
	done := *f
	done.State, done.Outcome = store.FlowFailed, failure(outcomeWithdrawn).Encode()
	return s.cfg.Store.UpdateSCAFlow(ctx, &done, store.FlowPending)
}

// Withdrawn reports whether flow f ended withdrawn by its TPP.
func (*Service) Withdrawn(f *store.SCAFlow) bool {
	return f.State == store.FlowFailed && f.Outcome == failure(outcomeWithdrawn).Encode()
}
