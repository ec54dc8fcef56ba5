package backend

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
	_ "time/tzdata" // the bank's calendar is Europe/Oslo on any host

	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Flow purposes of payment initiation.
const (
	PurposePayment = "payment"
	PurposeBasket  = "basket"
	// PurposeCancellation: the PSU authorises cancelling a payment it has
	// already authorised (see cancellation.go).
	PurposeCancellation = "cancellation"
)

// InstantProduct settles at once between the bank's own accounts.
const InstantProduct = "instant-norwegian-credit-transfers-straks"

// DomesticProduct's details and status are unavailable before approval.
const DomesticProduct = "domestic-norway-credit-transfers"

// oslo is the bank's time zone (time/tzdata makes it available on any host).
var oslo = func() *time.Location {
	if l, err := time.LoadLocation("Europe/Oslo"); err == nil {
		return l
	}
	return time.UTC
}()

// bankToday is the bank's current date.
func (s *Server) bankToday() string { return payments.Today(s.cfg.Now()) }

// paymentBase is the path of each payment kind.
var paymentBase = map[string]string{
	store.PaymentSingle:   "/v1/payments",
	store.PaymentPeriodic: "/v1/periodic-payments",
	store.PaymentBulk:     "/v1/bulk-payments",
}

func (s *Server) paymentRoutes(tpp func(func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error) http.Handler) {
	s.mux.Handle("POST /v1/payments/"+InstantProduct+"/fee-information", tpp(s.feeInformation))
	for kind, base := range paymentBase {
		s.mux.Handle("POST "+base+"/{product}", tpp(s.createPayment(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}", tpp(s.getPayment(kind, false)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/status", tpp(s.getPayment(kind, true)))
		s.mux.Handle("DELETE "+base+"/{product}/{paymentId}", tpp(s.cancelPayment(kind)))
		s.mux.Handle("POST "+base+"/{product}/{paymentId}/authorisations", tpp(s.startPaymentAuthorisation(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/authorisations/{authorisationId}", tpp(s.getAuthorisation(kind, PurposePayment, "authorisationId")))
		s.mux.Handle("POST "+base+"/{product}/{paymentId}/cancellation-authorisations", tpp(s.startCancellationAuthorisation(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/cancellation-authorisations/{cancellationId}", tpp(s.getAuthorisation(kind, PurposeCancellation, "cancellationId")))
	}
	s.mux.Handle("POST /v1/signing-baskets", tpp(s.createBasket))
	s.mux.Handle("GET /v1/signing-baskets/{basketId}", tpp(s.getBasket(false)))
	s.mux.Handle("GET /v1/signing-baskets/{basketId}/status", tpp(s.getBasket(true)))
	s.mux.Handle("DELETE /v1/signing-baskets/{basketId}", tpp(s.deleteBasket))
	s.mux.Handle("POST /v1/signing-baskets/{basketId}/authorisations", tpp(s.startBasketAuthorisation))
}

func paymentHref(p *store.Payment) string {
	return paymentBase[p.Kind] + "/" + p.Product + "/" + p.ID
}

// readBody reads a request body of at most maxMockBody bytes.
func readBody(r *http.Request) ([]byte, *bgerror.Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxMockBody+1))
	if err != nil || len(b) > maxMockBody {
		return nil, bgerror.New(bgerror.CodeFormatError, "the body could not be read or is over 1 MiB")
	}
	return b, nil
}

func paymentFieldErrors(errs []payments.FieldError) *bgerror.Error {
	e := bgerror.Format(errs[0].Path, errs[0].Rule)
	for _, fe := range errs[1:] {
		e.More = append(e.More, bgerror.Detail{Path: fe.Path, Text: fe.Rule})
	}
	return e
}

// parsed is a validated initiation of any kind.
type parsed struct {
	amount   payments.Money
	date     string
	debtor   payments.AccountReference
	creditor []payments.Payment // the payments to execute (bulk: several)
}

// parse validates an initiation body as of today (a stored payment is
// re-read as of the day it was created, so its dates stay valid).
func (s *Server) parse(kind, product string, body []byte, today string) (parsed, *bgerror.Error) {
	switch kind {
	case store.PaymentPeriodic:
		p, errs := payments.ParsePeriodic(product, body, today)
		if len(errs) > 0 {
			return parsed{}, paymentFieldErrors(errs)
		}
		return parsed{amount: p.InstructedAmount, date: p.StartDate, debtor: p.DebtorAccount, creditor: []payments.Payment{p.Payment}}, nil
	case store.PaymentBulk:
		b, errs := payments.ParseBulk(product, body, today)
		if len(errs) > 0 {
			return parsed{}, paymentFieldErrors(errs)
		}
		out := parsed{date: orDefault(b.RequestedExecutionDate, today), debtor: b.DebtorAccount, creditor: b.Payments}
		for _, p := range b.Payments {
			out.amount.Currency = p.InstructedAmount.Currency
			out.amount.Minor += p.InstructedAmount.Minor
		}
		return out, nil
	default:
		p, errs := payments.ParsePayment(product, body, today)
		if len(errs) > 0 {
			return parsed{}, paymentFieldErrors(errs)
		}
		return parsed{amount: p.InstructedAmount, date: orDefault(p.RequestedExecutionDate, today), debtor: p.DebtorAccount, creditor: []payments.Payment{p}}, nil
	}
}

type paymentResponse struct {
	TransactionStatus string          `json:"transactionStatus"`
	PaymentID         string          `json:"paymentId"`
	Links             map[string]link `json:"_links"`
}

// createPayment initiates a payment. The same (TPP, X-Request-ID) answers
// with the payment it created the first time and never makes a second.
func (s *Server) createPayment(kind string) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		product := r.PathValue("product")
		if !payments.KnownProduct(product) {
			return bgerror.New(bgerror.CodeProductUnknown, "unknown payment product "+product)
		}
		ctx := r.Context()
		if p, err := s.cfg.Store.GetPaymentByRequest(ctx, c.TPP, c.RequestID); err == nil {
			return s.answerCreated(w, r, c, p)
		} else if !errors.Is(err, store.ErrNotFound) {
			return storeError(err, "the payment")
		}
		body, e := readBody(r)
		if e != nil {
			return e
		}
		in, e := s.parse(kind, product, body, s.bankToday())
		if e != nil {
			return e
		}
		p := &store.Payment{TPP: c.TPP, RequestID: c.RequestID, Kind: kind, Product: product,
			Amount: in.amount.Minor, Currency: in.amount.Currency, ExecutionDate: in.date, Body: body, Status: StatusReceived}
		err := s.cfg.Store.CreatePayment(ctx, p)
		if errors.Is(err, store.ErrConflict) {
			// A concurrent retry won: answer with its payment.
			if p, err = s.cfg.Store.GetPaymentByRequest(ctx, c.TPP, c.RequestID); err != nil {
				return storeError(err, "the payment")
			}
		} else if err != nil {
			return storeError(err, "the payment")
		}
		return s.answerCreated(w, r, c, p)
	}
}

// answerCreated answers a creation with the payment and a fresh SCA flow
// while it still needs SCA.
func (s *Server) answerCreated(w http.ResponseWriter, r *http.Request, c *tppcontext.Context, p *store.Payment) *bgerror.Error {
	self := paymentHref(p)
	links := map[string]link{
		"self":   {Href: self, Verbs: []string{"GET", "DELETE"}},
		"status": get(self + "/status"),
	}
	if p.Status == StatusReceived {
		f, e := s.startFlow(r.Context(), r, c, PurposePayment, p.ID, true)
		if e != nil {
			return e
		}
		links["scaRedirect"] = get(scaHref(f.ID))
		links["scaStatus"] = get(self + "/authorisations/" + f.ID)
	}
	w.Header().Set("Location", self)
	writeJSON(w, http.StatusCreated, paymentResponse{TransactionStatus: p.Status, PaymentID: p.ID, Links: links})
	return nil
}

// paymentOf returns the TPP's payment of the path.
func (s *Server) paymentOf(r *http.Request, c *tppcontext.Context, kind string) (*store.Payment, *bgerror.Error) {
	p, err := s.cfg.Store.GetPayment(r.Context(), r.PathValue("paymentId"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (p.Kind != kind || p.Product != r.PathValue("product"))) {
		return nil, bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such payment")
	} else if err != nil {
		return nil, storeError(err, "the payment")
	}
	if p.TPP != c.TPP {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the payment belongs to another TPP")
	}
	return p, nil
}

func (s *Server) getPayment(kind string, statusOnly bool) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
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
			writeJSON(w, http.StatusOK, status)
			return nil
		}
		var body map[string]any
		_ = json.Unmarshal(p.Body, &body)
		if body == nil {
			body = map[string]any{}
		}
		for k, v := range status {
			body[k] = v
		}
		body["_links"] = map[string]link{"status": get(paymentHref(p) + "/status")}
		writeJSON(w, http.StatusOK, body)
		return nil
	}
}

// startPaymentAuthorisation opens a new SCA flow for a payment awaiting SCA.
func (s *Server) startPaymentAuthorisation(kind string) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		if p.Status != StatusReceived {
			return bgerror.New(bgerror.CodeStatusInvalid, "the payment is "+p.Status+" and needs no authorisation")
		}
		return s.startPaymentFlow(w, r, c, p, PurposePayment, "authorisations")
	}
}

// startPaymentFlow starts an SCA flow of purpose for p and answers 201
// with it, found under p's collection (authorisations or
// cancellation-authorisations).
func (s *Server) startPaymentFlow(w http.ResponseWriter, r *http.Request, c *tppcontext.Context, p *store.Payment, purpose, collection string) *bgerror.Error {
	f, e := s.startFlow(r.Context(), r, c, purpose, p.ID, true)
	if e != nil {
		return e
	}
	href := paymentHref(p) + "/" + collection + "/" + f.ID
	w.Header().Set("Location", href)
	writeJSON(w, http.StatusCreated, map[string]any{"authorisationId": f.ID, "scaStatus": "received",
		"_links": map[string]link{"scaRedirect": get(scaHref(f.ID)), "scaStatus": get(href)}})
	return nil
}

// getAuthorisation answers the scaStatus of a payment's flow of purpose
// (its authorisation or a cancellation's), named by the path value param.
func (s *Server) getAuthorisation(kind, purpose, param string) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		p, e := s.paymentOf(r, c, kind)
		if e != nil {
			return e
		}
		f, err := s.cfg.Store.GetSCAFlow(r.Context(), r.PathValue(param))
		if err != nil || f.ResourceID != p.ID || f.TPP != c.TPP || f.Purpose != purpose {
			return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such authorisation of this payment")
		}
		writeJSON(w, http.StatusOK, map[string]string{"scaStatus": scaStatus(f, s.cfg.Now())})
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

// feeInformation answers the fee of an instant payment body.
func (s *Server) feeInformation(w http.ResponseWriter, r *http.Request, _ *tppcontext.Context) *bgerror.Error {
	body, e := readBody(r)
	if e != nil {
		return e
	}
	p, errs := payments.ParsePayment(InstantProduct, body, s.bankToday())
	if len(errs) > 0 {
		return paymentFieldErrors(errs)
	}
	fee := payments.Fee(p)
	writeJSON(w, http.StatusOK, map[string]any{"transactionFees": amountOf(fee.Minor, fee.Currency)})
	return nil
}

// authorisePayment completes SCA for one payment: the debtor account must
// be the PSU's; the payment becomes ACTC (or PDNG for a future date), and
// an instant payment between own accounts settles at once.
func (s *Server) authorisePayment(ctx context.Context, f *store.SCAFlow, p *store.Payment) error {
	if p.Status != StatusReceived {
		return errPaymentState
	}
	in, e := s.parse(p.Kind, p.Product, p.Body, payments.Today(p.CreatedAt))
	if e != nil {
		return errPaymentState
	}
	debtor, err := s.cfg.Store.GetAccountByNumber(ctx, in.debtor.IBAN, in.debtor.BBAN)
	if err != nil || !s.mayDebit(ctx, f, debtor) {
		return errNotPSUAccount
	}
	p.CustomerID, p.DebtorAccountID = f.CustomerID, debtor.ID
	p.Status = StatusAccepted
	if p.ExecutionDate > s.bankToday() {
		p.Status = StatusPending
	}
	if err := s.cfg.Store.UpdatePayment(ctx, p, StatusReceived); err != nil {
		return err
	}
	if p.Product == InstantProduct && p.Status == StatusAccepted {
		_, err := s.execute(ctx, p, true)
		return err
	}
	return nil
}

// mayDebit reports whether the flow's PSU may pay from account: its own
// (private) or one it has REGISTER rights on under the chosen agreement.
func (s *Server) mayDebit(ctx context.Context, f *store.SCAFlow, account *store.Account) bool {
	if f.Context != "CORPORATE" {
		return account.CustomerID == f.CustomerID
	}
	ag, err := s.cfg.Store.GetAgreement(ctx, f.AgreementID)
	if err != nil {
		return false
	}
	for _, e := range ag.Engagements {
		if e.CustomerID == f.CustomerID && e.AccountID == account.ID && hasRoles(e.Roles, "REGISTER") {
			return true
		}
	}
	return false
}

var (
	errPaymentState  = errors.New("the payment is no longer awaiting authorisation")
	errNotPSUAccount = errors.New("the debtor account is not one the PSU may pay from")
	errNoFunds       = errors.New("insufficient funds")
)

// remittance returns the payment's unstructured text, or its structured
// references, for the booked transaction.
func remittance(p *payments.Payment) string {
	if p.RemittanceInformationUnstructured != "" {
		return p.RemittanceInformationUnstructured
	}
	var refs []string
	if p.RemittanceInformationStructured != nil {
		refs = append(refs, p.RemittanceInformationStructured.Reference)
	}
	for _, r := range p.RemittanceInformationStructuredArray {
		refs = append(refs, r.Reference)
	}
	return strings.Join(refs, " ")
}
