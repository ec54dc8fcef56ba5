package pis

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Payment cancellation (Berlin Group v1.3): a payment still awaiting the
// PSU's SCA is cancelled by the TPP alone (DELETE answers 204); one the PSU
// has authorised but that is not final yet is cancelled only once the PSU
// confirms it on the SCA page (DELETE answers 202 with a cancellation SCA
// flow already started; the payment keeps its status until then).

// needsCancellationSCA reports whether cancelling a payment in status needs
// the PSU: it may be cancelled and the PSU has already authorised it.
func needsCancellationSCA(status string) bool {
	return status != StatusReceived && CanMove(status, StatusCancelled)
}

// CancelPayment cancels a payment awaiting SCA (204), or starts the PSU's
// authorisation of cancelling an authorised one (202).
func (s *Service) CancelPayment(kind string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		from := p.Status
		if !CanMove(from, StatusCancelled) {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment is "+from+" and can no longer be cancelled")
		}
		if needsCancellationSCA(from) {
			f, e := s.Flows.Start(r.Context(), r, c, store.PurposeCancellation, p.ID, true)
			if e != nil {
				return e
			}
			self := paymentHref(r, p)
			respond.JSON(w, http.StatusAccepted, map[string]any{"transactionStatus": from, "_links": map[string]respond.Link{
				"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
				"status":             respond.Get(self + "/status"),
				"startAuthorisation": {Href: self + "/cancellation-authorisations", Verbs: []string{"POST"}},
				"scaRedirect":        respond.Get(s.Flows.Href(r, f.ID)),
				"scaStatus":          respond.Get(self + "/cancellation-authorisations/" + f.ID),
			}})
			return nil
		}
		if err := movePayment(r.Context(), s.Store, p, StatusCancelled); errors.Is(err, store.ErrConflict) {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment changed status meanwhile; read its status and retry")
		} else if err != nil {
			return s.storeError(err, "the payment")
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// StartCancellationAuthorisation opens a new cancellation SCA flow for an
// authorised payment that may still be cancelled.
func (s *Service) StartCancellationAuthorisation(kind string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		if p.Status == StatusReceived {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment awaits SCA: DELETE cancels it without the PSU")
		}
		if !needsCancellationSCA(p.Status) {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment is "+p.Status+" and can no longer be cancelled")
		}
		return s.startPaymentFlow(w, r, c, p, store.PurposeCancellation, "cancellation-authorisations")
	}
}

// Outcomes of a cancellation flow that could not cancel, for the PSU's
// failure redirect.
var (
	outcomeCancelNotPSUAccount = bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "The payment could not be cancelled: it is not from an account you may pay from")
	outcomeNotCancellable      = bgerror.New(bgerror.CodeStatusInvalid, "The payment could not be cancelled: it can no longer be cancelled")
	outcomeCancelLost          = bgerror.New(bgerror.CodeServiceUnavailable, "The payment could not be cancelled: the bank's systems are temporarily unavailable; try again")
)

// cancelFlow completes a cancellation flow, or answers the outcome for the
// PSU.
func (s *Service) cancelFlow(ctx context.Context, f *store.SCAFlow) *bgerror.Error {
	err := s.cancelFlowPayment(ctx, f)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errNotPSUAccount):
		return outcomeCancelNotPSUAccount
	case errors.Is(err, errNotCancellable), errors.Is(err, store.ErrConflict):
		return outcomeNotCancellable
	}
	s.Log.Error("payment of a cancellation flow not cancelled", slog.String("flow", f.ID), slog.Any("error", err))
	return outcomeCancelLost
}

// cancelFlowPayment completes a cancellation flow: the PSU must be one who
// may pay from the payment's debtor account, and the payment must still be
// cancellable; it then becomes CANC, unless a batch run took it meanwhile
// (store.ErrConflict).
func (s *Service) cancelFlowPayment(ctx context.Context, f *store.SCAFlow) error {
	p, err := s.Store.GetPayment(ctx, f.ResourceID)
	if err != nil {
		return err
	}
	from := p.Status
	if !needsCancellationSCA(from) {
		return errNotCancellable
	}
	debtor, err := s.Store.GetAccount(ctx, p.DebtorAccountID)
	if err != nil || s.debitRight(ctx, f, debtor) != nil {
		return errNotPSUAccount
	}
	return movePayment(ctx, s.Store, p, StatusCancelled)
}

var errNotCancellable = errors.New("the payment can no longer be cancelled")
