package pis

import (
	"errors"
	"net/http"
	"strings"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// The bank's own moves of a payment on hold (release 1.21.18: "payment
// status for payments on hold or stopped"), as sandbox operations: POST
// /v1/sandbox/payments/{paymentId}/hold puts an authorised payment not yet
// executed (ACTC, PDNG, ACCP) on HOLD; .../release lets a held one go on
// (ACTC when due, PDNG before its date; an instant payment is executed at
// once, ACSC or RJCT without funds); .../stop stops it for good (CANC).
// Each answers 200 with the payment's status. A TPP moves only its own
// payments; every move goes through movePayment.

// holdMove is one of the bank's moves: the statuses it leaves from.
type holdMove struct {
	from []string
	what string // for errors: "held", "released", "stopped"
}

var (
	moveHold    = holdMove{from: []string{StatusAccepted, StatusPending, StatusAcceptedCustomerProfile}, what: "held"}
	moveRelease = holdMove{from: []string{StatusHold}, what: "released"}
	moveStop    = holdMove{from: []string{StatusHold}, what: "stopped"}
)

// Hold puts a payment on hold, Release lets a held one go on, Stop stops
// a held one for good: the sandbox's operations of the bank on a payment.
func (s *Service) Hold() respond.Handler { return s.move(moveHold, StatusHold) }

// Release: see Hold.
func (s *Service) Release() respond.Handler { return s.move(moveRelease, "") }

// Stop: see Hold.
func (s *Service) Stop() respond.Handler { return s.move(moveStop, StatusCancelled) }

// move is a sandbox operation of the bank on a payment: m names the
// statuses it applies to, to the status it moves the payment to (""
// for release: the payment's due status).
func (s *Service) move(m holdMove, to string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		ctx := r.Context()
		p, err := s.Store.GetPayment(ctx, r.PathValue("paymentId"))
		if errors.Is(err, store.ErrNotFound) {
			return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such payment")
		} else if err != nil {
			return s.storeError(err, "the payment")
		}
		if p.TPP != c.TPP {
			return bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the payment belongs to another TPP")
		}
		ok := false
		for _, f := range m.from {
			ok = ok || p.Status == f
		}
		if !ok {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment is "+p.Status+"; only a payment in "+
				strings.Join(m.from, ", ")+" can be "+m.what)
		}
		dest := to
		if dest == "" {
			dest = s.dueStatus(p)
		}
		if err := movePayment(ctx, s.Store, p, dest); errors.Is(err, store.ErrConflict) {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment changed status meanwhile; read its status and retry")
		} else if err != nil {
			return s.storeError(err, "the payment")
		}
		if p.Product == InstantProduct && p.Status == StatusAccepted {
			// A released instant payment executes at once, as at SCA.
			if _, err := s.Execute(ctx, p, true); err != nil && !errors.Is(err, errNoFunds) && !errors.Is(err, errExchange) && !errors.Is(err, errNoRate) {
				return s.storeError(err, "the payment")
			}
			if p, err = s.Store.GetPayment(ctx, p.ID); err != nil {
				return s.storeError(err, "the payment")
			}
		}
		out := map[string]any{"transactionStatus": p.Status, "_links": map[string]respond.Link{"status": respond.Get(paymentHref(r, p) + "/status")}}
		if p.FundsAvailable != "" {
			out["fundsAvailable"] = p.FundsAvailable == "true"
		}
		respond.JSON(w, http.StatusOK, out)
		return nil
	}
}
