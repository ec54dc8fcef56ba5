package pis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// StartPaymentAuthorisation opens a new SCA flow for a payment awaiting SCA.
func (s *Service) StartPaymentAuthorisation(kind string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		if p.Status != StatusReceived {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment is "+p.Status+" and needs no authorisation")
		}
		return s.startPaymentFlow(w, r, c, p, store.PurposePayment, "authorisations")
	}
}

// startPaymentFlow starts an SCA flow of purpose for p and answers 201
// with it, found under p's collection (authorisations or
// cancellation-authorisations).
func (s *Service) startPaymentFlow(w http.ResponseWriter, r *http.Request, c *tppcontext.Context, p *store.Payment, purpose, collection string) *bgerror.Error {
	f, e := s.Flows.Start(r.Context(), r, c, purpose, p.ID, true)
	if e != nil {
		return e
	}
	href := paymentHref(r, p) + "/" + collection + "/" + f.ID
	w.Header().Set("Location", href)
	respond.JSON(w, http.StatusCreated, map[string]any{"authorisationId": f.ID, "scaStatus": "received",
		"_links": map[string]respond.Link{"scaRedirect": respond.Get(s.Flows.Href(r, f.ID)), "scaStatus": respond.Get(href)}})
	return nil
}

// GetAuthorisation answers the scaStatus of a payment's flow of purpose
// (its authorisation or a cancellation's), named by the path value param.
func (s *Service) GetAuthorisation(kind, purpose, param string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		f, err := s.Store.GetSCAFlow(r.Context(), r.PathValue(param))
		if err != nil || f.ResourceID != p.ID || f.TPP != c.TPP || f.Purpose != purpose {
			return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such authorisation of this payment")
		}
		respond.JSON(w, http.StatusOK, map[string]string{"scaStatus": scaStatus(f, s.Now())})
		return nil
	}
}

// scaStatus is the Berlin Group scaStatus of a flow.
func scaStatus(f *store.SCAFlow, now time.Time) string {
	switch {
	case f.State == store.FlowCompleted:
		return "finalised"
	case f.State == store.FlowFailed || !now.Before(f.ExpiresAt):
		return "failed"
	case f.CustomerID != "":
		return "psuAuthenticated"
	default:
		return "received"
	}
}

var (
	errPaymentState  = errors.New("the payment is no longer awaiting authorisation")
	errNotPSUAccount = errors.New("the debtor account is not one the PSU may pay from")
	errViewOnly      = errors.New("the PSU may view the debtor account under the agreement, but not pay from it")
	errNoFunds       = errors.New("insufficient funds")
)

// flowPayments returns the payments a payment, basket or cancellation flow
// is about.
func (s *Service) flowPayments(ctx context.Context, f *store.SCAFlow) ([]*store.Payment, error) {
	ids := []string{f.ResourceID}
	if f.Purpose == store.PurposeBasket {
		b, err := s.Store.GetBasket(ctx, f.ResourceID)
		if err != nil {
			return nil, err
		}
		ids = b.PaymentIDs
	}
	out := make([]*store.Payment, 0, len(ids))
	for _, id := range ids {
		p, err := s.Store.GetPayment(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Outcomes of a payment or basket flow whose payments could not be
// authorised, for the PSU's failure redirect.
var (
	outcomeNotPSUAccount = bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "The payment could not be authorised: it is not from an account you may pay from")
	outcomeNoFunds       = bgerror.New(bgerror.CodePaymentFailed, "The payment could not be authorised: there are not enough funds")
	outcomeNoRate        = bgerror.New(bgerror.CodePaymentFailed, "The payment could not be authorised: the bank does not exchange its currency into the account's")
	outcomeViewOnly      = bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "The payment could not be authorised: under this agreement you may view the account but not pay from it")
	outcomeNotAwaiting   = bgerror.New(bgerror.CodeStatusInvalid, "The payment could not be authorised: it is no longer awaiting authorisation")
	// outcomeBasketDeleted: the TPP deleted the basket; its payments
	// stay awaiting SCA, each on its own.
	outcomeBasketDeleted = bgerror.New(bgerror.CodeStatusInvalid, "The payments could not be authorised: the provider withdrew the basket")
	outcomeAuthoriseLost = bgerror.New(bgerror.CodeServiceUnavailable, "The payment could not be authorised: the bank's systems are temporarily unavailable; try again")
	// outcomePartlyExecuted: every payment of the basket was authorised,
	// and an instant one could not then be executed; each payment's
	// status tells which (the basket's is RJCT, its worst case).
	outcomePartlyExecuted = bgerror.New(bgerror.CodePaymentFailed, "The payments were authorised, but an instant payment could not be executed: there are no longer enough funds; check each payment's status before trying again")
)

// authoriseFlow completes a payment or basket flow: it authorises the
// flow's payments with this SCA, or answers the outcome for the PSU after
// rejecting those still awaiting SCA (all of them: nothing was authorised,
// unless the outcome is outcomePartlyExecuted), except when the store
// failed: then they stay awaiting SCA, to be authorised again.
func (s *Service) authoriseFlow(ctx context.Context, f *store.SCAFlow) *bgerror.Error {
	err := s.authoriseFlowPayments(ctx, f)
	if err == nil {
		return nil
	}
	if errors.Is(err, errBasketDeleted) {
		return outcomeBasketDeleted // its payments stay RCVD
	}
	if errors.Is(err, errPartlyExecuted) {
		s.Log.Warn("basket authorised, an instant payment not executed", slog.String("flow", f.ID), slog.Any("error", err))
		return outcomePartlyExecuted
	}
	var outcome *bgerror.Error
	switch {
	case errors.Is(err, errNotPSUAccount):
		outcome = outcomeNotPSUAccount
	case errors.Is(err, errViewOnly):
		outcome = outcomeViewOnly
	case errors.Is(err, errNoFunds):
		outcome = outcomeNoFunds
	case errors.Is(err, errNoRate):
		outcome = outcomeNoRate
	case errors.Is(err, errPaymentState), errors.Is(err, store.ErrConflict):
		outcome = outcomeNotAwaiting
	default:
		// The store failed: the payments stay as they are (awaiting SCA
		// unless authorised), so that "try again" can be done.
		s.Log.Error("payments of an SCA flow not authorised", slog.String("flow", f.ID), slog.Any("error", err))
		return outcomeAuthoriseLost
	}
	s.Reject(ctx, f)
	return outcome
}

// authoriseFlowPayments authorises every payment of the flow with this one
// SCA, all of them or none: each is checked first (awaiting SCA, from an
// account the PSU may pay from, in a currency the bank exchanges; for a
// basket, the funds of every instant payment due now, per debtor
// account), then all move to their authorised status in one transaction,
// and only then do the instant ones execute. So a basket whose payments
// cannot all be authorised authorises and executes none of them, and a
// TPP that retries it pays nothing twice. Should an instant payment's
// funds go between the check and its execution, it alone is rejected and
// the others stay authorised: errPartlyExecuted says so.
func (s *Service) authoriseFlowPayments(ctx context.Context, f *store.SCAFlow) error {
	if s.basketDeleted(ctx, f) {
		return errBasketDeleted
	}
	ps, err := s.flowPayments(ctx, f)
	if err != nil {
		return err
	}
	plans := make([]authorisation, 0, len(ps))
	for _, p := range ps {
		if f.Purpose == store.PurposeBasket && p.Status != StatusReceived && p.Status != StatusRejected && p.Status != StatusCancelled {
			// Authorised on its own before: "a basket is not atomic",
			// and the rest of it can still be authorised.
			continue
		}
		a, err := s.planAuthorisation(ctx, f, p)
		if err != nil {
			return err
		}
		plans = append(plans, a)
	}
	if len(plans) > 1 {
		if err := s.checkInstantFunds(ctx, plans); err != nil {
			return err
		}
	}
	err = s.Store.Atomically(ctx, func(tx store.Store) error {
		if f.Purpose == store.PurposeBasket {
			// The basket's row first, as DeleteBasket takes it: a
			// deletion either comes before (the basket is gone, nothing
			// is authorised) or after (it finds the payments authorised).
			b, err := tx.GetBasket(ctx, f.ResourceID)
			if err != nil {
				return err
			}
			if b.Status == basketCancelled {
				return errBasketDeleted
			}
			if err := tx.UpdateBasket(ctx, b, b.Status); errors.Is(err, store.ErrConflict) {
				return errBasketDeleted
			} else if err != nil {
				return err
			}
		}
		for _, a := range plans {
			a.p.CustomerID, a.p.DebtorAccountID = f.CustomerID, a.debtor.ID
			if err := movePayment(ctx, tx, a.p, a.to); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var failed error
	for _, a := range plans {
		if a.p.Product != InstantProduct || a.p.Status != StatusAccepted {
			continue
		}
		_, err := s.Execute(ctx, a.p, true)
		switch {
		case errors.Is(err, errExchange):
			// Authorised; the next batch run executes it.
			s.Log.Error("instant payment not executed: no exchange rate", slog.String("payment", a.p.ID), slog.Any("error", err))
		case err != nil && len(plans) == 1:
			return err
		case err != nil:
			failed = fmt.Errorf("%w: %w", errPartlyExecuted, err)
		}
	}
	return failed
}

// errBasketDeleted: the TPP deleted the basket of the flow.
var errBasketDeleted = errors.New("the basket was deleted")

// basketDeleted reports whether f is a basket's flow whose basket the TPP
// deleted (or that is gone).
func (s *Service) basketDeleted(ctx context.Context, f *store.SCAFlow) bool {
	if f.Purpose != store.PurposeBasket {
		return false
	}
	b, err := s.Store.GetBasket(ctx, f.ResourceID)
	return errors.Is(err, store.ErrNotFound) || (err == nil && b.Status == basketCancelled)
}

// errPartlyExecuted: a flow's payments were all authorised, and an instant
// one among them could not be executed (its funds went meanwhile).
var errPartlyExecuted = errors.New("authorised, but not every instant payment executed")

// authorisation is what authorising one payment of a flow does: move p,
// from debtor, to status to.
type authorisation struct {
	p      *store.Payment
	in     *payments.Instruction
	debtor *store.Account
	to     string
}

// planAuthorisation checks that p can be authorised by flow f's PSU, and
// returns what authorising it does: the debtor account must be the PSU's
// (or one it may pay from under the flow's agreement), and its currency
// one the bank exchanges; the payment becomes ACTC (or PDNG for a future
// date, or HOLD in the sandbox's HOLD scenario). Nothing is written.
func (s *Service) planAuthorisation(ctx context.Context, f *store.SCAFlow, p *store.Payment) (authorisation, error) {
	if p.Status != StatusReceived {
		return authorisation{}, errPaymentState
	}
	in, err := instructionOf(p)
	if err != nil {
		s.Log.Error("payment unreadable", slog.Any("error", err))
		return authorisation{}, errPaymentState
	}
	debtor, err := s.Store.GetAccountByNumber(ctx, store.OwnerOf(s.Sandbox, p.TPP), in.Debtor.IBAN, in.Debtor.BBAN)
	if err != nil {
		return authorisation{}, errNotPSUAccount
	}
	if err := s.debitRight(ctx, f, debtor); err != nil {
		return authorisation{}, err
	}
	// A currency the bank does not exchange into the account's can never
	// be executed: refuse it now. A rate source that is down only delays
	// execution.
	if _, err := s.quotesFor(ctx, debtor, in, ownCreditors(ctx, s.Store, debtor, in), s.bankToday()); errors.Is(err, errNoRate) {
		return authorisation{}, err
	}
	to := s.dueStatus(p)
	if s.Sandbox && heldScenario(in) {
		to = StatusHold
	}
	return authorisation{p: p, in: in, debtor: debtor, to: to}, nil
}

// checkInstantFunds checks, before any payment of a basket is authorised,
// that each debtor account holds the funds of all the basket's instant
// payments due now from it (available balance plus credit line, in the
// account's currency). When one does not, those payments are rejected
// with fundsAvailable false, and errNoFunds is returned.
func (s *Service) checkInstantFunds(ctx context.Context, plans []authorisation) error {
	day := s.bankToday()
	debits := map[string]int64{}
	from := map[string][]authorisation{}
	for _, a := range plans {
		if a.p.Product != InstantProduct || a.to != StatusAccepted {
			continue
		}
		rates, err := s.quotesFor(ctx, a.debtor, a.in, ownCreditors(ctx, s.Store, a.debtor, a.in), day)
		if err != nil {
			continue // no rate now: executed by a later batch run, not at once
		}
		for i := range a.in.Creditor {
			amount, _, err := rates.convert(a.in.Creditor[i].InstructedAmount, a.debtor.Currency)
			if err != nil {
				return err
			}
			debits[a.debtor.ID] += amount
		}
		from[a.debtor.ID] = append(from[a.debtor.ID], a)
	}
	for id, total := range debits {
		bs, err := s.Store.ListBalances(ctx, id)
		if err != nil {
			return err
		}
		if available(bs)+from[id][0].debtor.CreditLimit >= total {
			continue
		}
		for _, a := range from[id] {
			a.p.FundsAvailable = "false"
			if err := movePayment(ctx, s.Store, a.p, StatusRejected); err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
		}
		return errNoFunds
	}
	return nil
}

// dueStatus is the status of an authorised payment that is free to
// Execute: ACTC when due, PDNG before its execution date.
func (s *Service) dueStatus(p *store.Payment) string {
	if p.ExecutionDate > s.bankToday() {
		return StatusPending
	}
	return StatusAccepted
}

// HoldCreditorName is the sandbox scenario of a payment the bank puts on
// hold (release 1.21.18): a payment with a creditor of this name (any
// case) goes to HOLD instead of ACTC or PDNG when the PSU authorises it,
// and stays there until POST /v1/sandbox/payments/{paymentId}/release or
// .../stop.
const HoldCreditorName = "HOLD"

// heldScenario reports whether the payment is the sandbox's HOLD scenario:
// a creditor named HoldCreditorName.
func heldScenario(in *payments.Instruction) bool {
	for i := range in.Creditor {
		if strings.EqualFold(in.Creditor[i].CreditorName, HoldCreditorName) {
			return true
		}
	}
	return false
}

// debitRight says whether the flow's PSU may pay from account: its own
// (private), or one it has REGISTER rights on under the chosen agreement;
// errViewOnly when the agreement lets it only view the account,
// errNotPSUAccount otherwise.
func (s *Service) debitRight(ctx context.Context, f *store.SCAFlow, account *store.Account) error {
	if f.Context != "CORPORATE" {
		if account.CustomerID == f.CustomerID {
			return nil
		}
		return errNotPSUAccount
	}
	ag, err := s.Store.GetAgreement(ctx, f.AgreementID)
	if err != nil {
		return errNotPSUAccount
	}
	viewer := false
	for _, e := range ag.Engagements {
		if e.CustomerID != f.CustomerID || e.AccountID != account.ID {
			continue
		}
		if slices.Contains(e.Roles, "REGISTER") {
			return nil
		}
		viewer = viewer || slices.Contains(e.Roles, "VIEW")
	}
	if viewer {
		return errViewOnly
	}
	return errNotPSUAccount
}

// Reject marks the flow's payments still awaiting SCA as rejected
// (the PSU cancelled, or SCA failed).
func (s *Service) Reject(ctx context.Context, f *store.SCAFlow) {
	if f.Purpose != store.PurposePayment && f.Purpose != store.PurposeBasket {
		return
	}
	ps, err := s.flowPayments(ctx, f)
	if err != nil {
		return
	}
	for _, p := range ps {
		if p.Status != StatusReceived {
			continue
		}
		// A payment that moved meanwhile (conflict) keeps its status; a
		// store failure leaves it RCVD, and the TPP sees its flow failed.
		if err := movePayment(ctx, s.Store, p, StatusRejected); err != nil && !errors.Is(err, store.ErrConflict) {
			s.Log.Error("payment not rejected after a failed SCA", slog.String("payment", p.ID), slog.Any("error", err))
		}
	}
}

// Summary describes the payments of the flow for the PSU.
func (s *Service) Summary(ctx context.Context, f *store.SCAFlow) []string {
	if f.Purpose != store.PurposePayment && f.Purpose != store.PurposeBasket && f.Purpose != store.PurposeCancellation {
		return nil
	}
	ps, err := s.flowPayments(ctx, f)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range ps {
		in, err := instructionOf(p)
		if err != nil {
			s.Log.Error("payment unreadable", slog.Any("error", err))
			continue
		}
		for _, c := range in.Creditor {
			out = append(out, c.InstructedAmount.Currency+" "+money.Format(c.InstructedAmount.Minor, c.InstructedAmount.Currency)+
				" to "+c.CreditorName+" ("+c.CreditorAccount.IBAN+c.CreditorAccount.BBAN+") from "+in.Debtor.IBAN+in.Debtor.BBAN+", "+p.ExecutionDate)
		}
	}
	return out
}
