package backend

import (
	"context"
	"net/http"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// flows is the SCA as the concern packages start and read it (ais.Flows,
// pis.Flows).
type flows struct{ s *Server }

func (f flows) Start(ctx context.Context, r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	return f.s.startFlow(ctx, r, c, purpose, resourceID, anySession)
}

func (f flows) Required(ctx context.Context, r *http.Request, c *tppcontext.Context, code, text string) *bgerror.Error {
	return f.s.scaRequired(ctx, r, c, code, text)
}

func (f flows) New(r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	return f.s.newFlow(r, c, purpose, resourceID, anySession)
}

func (f flows) Started() { f.s.observeSCA(SCAStarted, "") }

func (flows) Href(r *http.Request, id string) string { return scaHref(r, id) }

// outcomeWithdrawn ends the SCA flow of a consent the TPP deleted before
// the PSU authorised it; the consent then reads terminatedByTpp.
var outcomeWithdrawn = bgerror.New(bgerror.CodeConsentInvalid, "The provider withdrew its request for your consent")

func (f flows) Withdraw(ctx context.Context, flow *store.SCAFlow) error {
	done := *flow
	done.State, done.Outcome = store.FlowFailed, failure(outcomeWithdrawn).Encode()
	return f.s.cfg.Store.UpdateSCAFlow(ctx, &done, store.FlowPending)
}

func (flows) Withdrawn(flow *store.SCAFlow) bool {
	return flow.State == store.FlowFailed && flow.Outcome == failure(outcomeWithdrawn).Encode()
}
