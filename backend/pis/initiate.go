package pis

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/obgw/obgw/backend/payments"
	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// InstantProduct settles at once between the bank's own accounts.
const InstantProduct = "instant-norwegian-credit-transfers-straks"

// DomesticProduct's details and status are unavailable before approval.
const DomesticProduct = "domestic-norway-credit-transfers"

// Base is the path of each payment kind.
var Base = map[string]string{
	store.PaymentSingle:   "/v1/payments",
	store.PaymentPeriodic: "/v1/periodic-payments",
	store.PaymentBulk:     "/v1/bulk-payments",
}

// bankToday is the bank's current date.
func (s *Service) bankToday() string { return payments.Today(s.Now()) }

func paymentHref(r *http.Request, p *store.Payment) string {
	return respond.Under(r, Base[p.Kind]+"/"+p.Product+"/"+p.ID)
}

// instructionOf returns the stored payment's instruction: what it
// executes, read from its body once, when it was initiated. A payment
// stored before instructions were kept whose body no longer parsed when
// migration 16 made them has none, and is refused: its body is never
// parsed again.
func instructionOf(p *store.Payment) (*payments.Instruction, error) {
	if len(p.Instruction.Creditor) == 0 {
		return nil, fmt.Errorf("payment %s has no instruction", p.ID)
	}
	return &p.Instruction, nil
}

type paymentResponse struct {
	TransactionStatus string                  `json:"transactionStatus"`
	PaymentID         string                  `json:"paymentId"`
	Links             map[string]respond.Link `json:"_links"`
}

// sameInitiation reports whether stored payment p is the one kind,
// product and body initiate: a retry, not another payment under a reused
// X-Request-ID. Bodies compare in their served form (how p's is stored).
func sameInitiation(p *store.Payment, kind, product string, body []byte) bool {
	served, err := payments.ServedForm(body)
	return err == nil && p.Kind == kind && p.Product == product && bytes.Equal(served, p.Body)
}

// CreatePayment initiates a payment. The same (TPP, X-Request-ID) answers
// with the payment it created the first time and never makes a second. A
// new payment and its SCA flow are stored in one transaction; the first
// request's payment is looked up only when the store refuses a second
// (or the body does not pass: a retry a day later must still find it).
func (s *Service) CreatePayment(kind string) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		product := r.PathValue("product")
		if !payments.KnownProduct(product) {
			return bgerror.New(bgerror.CodeProductUnknown, "unknown payment product "+product)
		}
		if !c.PSUPresent {
			// The PSU initiates a payment: it is present, and its
			// address is sent ("PSU-IP-Address is present when the PSU
			// is actively using the TPP service"; mandatory on payment
			// initiation in Berlin Group v1.3; issue 29, 6).
			return bgerror.Format("PSU-IP-Address", "PSU-IP-Address is required on payment initiation: send the address of the PSU who initiates the payment")
		}
		ctx := r.Context()
		var body []byte // the request's, once read
		first := func(refused *bgerror.Error) *bgerror.Error {
			p, err := s.Store.GetPaymentByRequest(ctx, c.TPP, c.RequestID)
			switch {
			case err == nil && !sameInitiation(p, kind, product, body):
				// A reused X-Request-ID with another payment: never
				// the first payment for the second's (issue 29, 12).
				return bgerror.Format("X-Request-ID", "this X-Request-ID initiated another payment (another product or body) before; send every new payment with a new X-Request-ID, and a retry with the same body")
			case err == nil:
				return s.answerCreated(w, r, c, p, nil)
			case refused != nil && errors.Is(err, store.ErrNotFound):
				return refused
			}
			return s.storeError(err, "the payment")
		}
		body, e := respond.Body(r)
		if e != nil {
			return e
		}
		// The one reading of the body: its instruction, and the form
		// a read serves it in.
		in, errs := payments.Parse(kind, product, body, s.bankToday())
		if len(errs) > 0 {
			return first(respond.FieldErrors(errs))
		}
		served, err := payments.ServedForm(body)
		if err != nil {
			return first(bgerror.New(bgerror.CodeFormatError, "the body is not JSON"))
		}
		p := &store.Payment{TPP: c.TPP, RequestID: c.RequestID, Kind: kind, Product: product,
			Amount: in.Amount.Minor, Currency: in.Amount.Currency, ExecutionDate: in.Date, Body: served, Status: StatusReceived, Instruction: in}
		f, e := s.Flows.New(r, c, store.PurposePayment, "", true)
		if e != nil {
			return first(e)
		}
		// Concurrent creations share a commit (store.Shared); the answer
		// goes out after the commit that holds this payment.
		err = store.Shared(ctx, s.Store, func(tx store.Store) error {
			if err := tx.CreatePayment(ctx, p); err != nil {
				return err
			}
			f.ResourceID = p.ID
			return tx.CreateSCAFlow(ctx, f)
		})
		switch {
		case errors.Is(err, store.ErrConflict):
			// A retry, or a concurrent one that won: answer with its payment.
			return first(nil)
		case err != nil:
			return s.storeError(err, "the payment")
		}
		s.Flows.Started()
		return s.answerCreated(w, r, c, p, f)
	}
}

// answerCreated answers a creation with the payment and its SCA flow
// while it still needs SCA: f, made with it, or else a fresh one.
func (s *Service) answerCreated(w http.ResponseWriter, r *http.Request, c *tppcontext.Context, p *store.Payment, f *store.SCAFlow) *bgerror.Error {
	self := paymentHref(r, p)
	links := map[string]respond.Link{
		"self":   {Href: self, Verbs: []string{"GET", "DELETE"}},
		"status": respond.Get(self + "/status"),
	}
	if p.Status == StatusReceived {
		if f == nil {
			var e *bgerror.Error
			if f, e = s.Flows.Start(r.Context(), r, c, store.PurposePayment, p.ID, true); e != nil {
				return e
			}
		}
		links["scaRedirect"] = respond.Get(s.Flows.Href(r, f.ID))
		links["scaStatus"] = respond.Get(self + "/authorisations/" + f.ID)
	}
	w.Header().Set("Location", self)
	respond.JSON(w, http.StatusCreated, paymentResponse{TransactionStatus: p.Status, PaymentID: p.ID, Links: links})
	return nil
}

// FeeInformation answers the fee of an instant payment body.
func (s *Service) FeeInformation(w http.ResponseWriter, r *http.Request, _ *tppcontext.Context) *bgerror.Error {
	body, e := respond.Body(r)
	if e != nil {
		return e
	}
	p, errs := payments.ParsePayment(InstantProduct, body, s.bankToday())
	if len(errs) > 0 {
		return respond.FieldErrors(errs)
	}
	fee := payments.Fee(p)
	respond.JSON(w, http.StatusOK, map[string]any{"transactionFees": resource.AmountOf(fee.Minor, fee.Currency)})
	return nil
}

// FeeInformationPostOnly answers the other methods on the fee-information
// resource: 405 SERVICE_INVALID, as for any known path with another
// method. Without it GET and DELETE would reach the instant product's
// payment routes and look for a payment with the id "fee-information".
func FeeInformationPostOnly(w http.ResponseWriter, r *http.Request, _ *tppcontext.Context) *bgerror.Error {
	w.Header().Set("Allow", http.MethodPost)
	return bgerror.New(bgerror.CodeServiceInvalid, r.Method+" is not allowed on fee-information; POST the payment body to get its fee")
}

// structuredReference is one structured remittance of a booked
// transaction, as remittanceInformationStructuredArray serves it.
type structuredReference struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType,omitempty"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

// structuredRemittance returns the payment's structured references (the
// older single remittanceInformationStructured, or the newer array), for
// the booked transaction's remittanceInformationStructuredArray.
func structuredRemittance(p *payments.Payment) []structuredReference {
	var refs []structuredReference
	add := func(r payments.StructuredRemittance) {
		refs = append(refs, structuredReference{Reference: r.Reference, ReferenceType: r.ReferenceType, ReferenceIssuer: r.ReferenceIssuer})
	}
	if p.RemittanceInformationStructured != nil {
		add(*p.RemittanceInformationStructured)
	}
	for _, r := range p.RemittanceInformationStructuredArray {
		add(r)
	}
	return refs
}
