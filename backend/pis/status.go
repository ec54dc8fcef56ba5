package pis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Payment statuses (ISO 20022 ExternalPaymentTransactionStatus codes, as
// Berlin Group v1.3 uses them), and the transitions obgw makes. This table
// is the one place they are written down; the README repeats it.
const (
	// StatusReceived: created, awaiting the PSU's SCA.
	StatusReceived = "RCVD"
	// StatusAccepted: authorised by SCA, technically valid, due now.
	StatusAccepted = "ACTC"
	// StatusPending: authorised, waiting for its requested execution date.
	StatusPending = "PDNG"
	// StatusAcceptedCustomerProfile: a batch run found the debtor account
	// without funds (fundsAvailable false); later runs try again.
	StatusAcceptedCustomerProfile = "ACCP"
	// StatusSettlementInProcess: taken by a batch run.
	StatusSettlementInProcess = "ACSP"
	// StatusSettled: debited (and credited, for an own-bank creditor).
	StatusSettled = "ACSC"
	// StatusRejected: SCA failed or was cancelled by the PSU.
	StatusRejected = "RJCT"
	// StatusCancelled: cancelled before execution: by the TPP alone while
	// awaiting SCA, else once the PSU confirmed the TPP's cancellation
	// (cancellation SCA flow, see cancellation.go).
	StatusCancelled = "CANC"
	// StatusHold: stopped or on hold by the bank (release 1.21.18): at
	// authorisation, or later while not yet executed; the bank releases it
	// (ACTC, or PDNG before its date) or stops it (CANC). In the sandbox a
	// creditor named HoldCreditorName is held at authorisation,
	// and POST /v1/sandbox/payments/{paymentId}/hold, /release and /stop
	// are the bank's moves (sandbox_hold.go, the sandbox's Hold, Release and Stop).
	StatusHold = "HOLD"
)

// paymentTransitions lists, for each status, the statuses a payment may
// move to and what moves it. "TPP DELETE" from RCVD cancels at once (204);
// from any later status it answers 202 and the payment moves only when
// the PSU confirms the cancellation on the SCA page ("TPP DELETE + PSU").
var paymentTransitions = map[string]map[string]string{
	StatusReceived:                {StatusAccepted: "SCA completed, due", StatusPending: "SCA completed, future date", StatusRejected: "SCA failed or cancelled", StatusCancelled: "TPP DELETE", StatusHold: "SCA completed, held by the bank (sandbox: creditorName HOLD)"},
	StatusAccepted:                {StatusSettlementInProcess: "batch run", StatusSettled: "instant, booked at once", StatusRejected: "instant, no funds", StatusAcceptedCustomerProfile: "batch run, no funds", StatusCancelled: "TPP DELETE + PSU", StatusHold: "bank"},
	StatusPending:                 {StatusSettlementInProcess: "batch run on the date", StatusAcceptedCustomerProfile: "batch run, no funds", StatusCancelled: "TPP DELETE + PSU", StatusHold: "bank"},
	StatusAcceptedCustomerProfile: {StatusSettlementInProcess: "batch run with funds", StatusCancelled: "TPP DELETE + PSU", StatusHold: "bank"},
	StatusSettlementInProcess:     {StatusSettled: "booked", StatusAcceptedCustomerProfile: "no funds at booking"},
	StatusHold:                    {StatusAccepted: "bank releases, due", StatusPending: "bank releases, future date", StatusCancelled: "bank stops, or TPP DELETE + PSU"},
}

// CanMove reports whether a payment may go from one status to another.
func CanMove(from, to string) bool {
	_, ok := paymentTransitions[from][to]
	return ok
}

// errTransition is a status change the table does not list: a bug, never
// made.
var errTransition = errors.New("payment status change not in the transition table")

// paymentWriter writes a payment: the store or a transaction of it.
type paymentWriter interface {
	UpdatePayment(ctx context.Context, p *store.Payment, from string) error
}

// movePayment is the one way a payment's status changes: it consults the
// table, then writes p (its status, PSU, debtor account and funds flag) in
// st if the stored status is still p's current one (store.ErrConflict
// otherwise, when something else moved it meanwhile). st is the store or a
// transaction of it.
func movePayment(ctx context.Context, st paymentWriter, p *store.Payment, to string) error {
	from := p.Status
	if !CanMove(from, to) {
		return fmt.Errorf("%w: %s to %s", errTransition, from, to)
	}
	p.Status = to
	if err := st.UpdatePayment(ctx, p, from); err != nil {
		p.Status = from
		return err
	}
	return nil
}

// paymentOf returns the TPP's payment of the path.
func (s *Service) paymentOf(r *http.Request, c *tppcontext.Context, kind string) (*store.Payment, *bgerror.Error) {
	p, err := s.Store.GetPayment(r.Context(), r.PathValue("paymentId"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (p.Kind != kind || p.Product != r.PathValue("product"))) {
		return nil, bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such payment")
	} else if err != nil {
		return nil, s.storeError(err, "the payment")
	}
	if p.TPP != c.TPP {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the payment belongs to another TPP")
	}
	return p, nil
}

func (s *Service) GetPayment(kind string, statusOnly bool) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		if p.Product == DomesticProduct && p.Status == StatusReceived {
			return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "a domestic payment's details and status are available once the PSU has approved it")
		}
		status := map[string]any{"transactionStatus": p.Status}
		if p.FundsAvailable != "" {
			status["fundsAvailable"] = p.FundsAvailable == "true"
		}
		if statusOnly {
			respond.JSON(w, http.StatusOK, status)
			return nil
		}
		// The body is stored as a read serves it (payments.ServedForm):
		// written out with the status and links, never parsed again.
		b := p.Body
		if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
			s.Log.Error("a stored payment body is not a JSON object", slog.String("payment", p.ID))
			return bgerror.New(bgerror.CodeServiceUnavailable, "the payment could not be read; retry later")
		}
		tail, err := json.Marshal(struct {
			TransactionStatus string                  `json:"transactionStatus"`
			FundsAvailable    *bool                   `json:"fundsAvailable,omitempty"`
			Links             map[string]respond.Link `json:"_links"`
		}{p.Status, fundsAvailable(p), map[string]respond.Link{"status": respond.Get(paymentHref(r, p) + "/status")}})
		if err != nil {
			return bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be built")
		}
		out := make([]byte, 0, len(b)+len(tail))
		out = append(out, b[:len(b)-1]...)
		if len(b) > 2 {
			out = append(out, ',')
		}
		out = append(out, tail[1:]...)
		respond.JSONBytes(w, http.StatusOK, out)
		return nil
	}
}

// fundsAvailable is the payment's known result of a funds check, or nil.
func fundsAvailable(p *store.Payment) *bool {
	if p.FundsAvailable == "" {
		return nil
	}
	ok := p.FundsAvailable == "true"
	return &ok
}
