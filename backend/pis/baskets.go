package pis

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// MaxBasketPayments is the most payments one signing basket holds.
const MaxBasketPayments = 10

// Basket statuses: the description allows RCVD, ACTC, PATC and RJCT.
const (
	basketReceived          = "RCVD"
	basketAccepted          = "ACTC"
	basketPartiallyAccepted = "PATC"
	basketRejected          = "RJCT"
	// basketCancelled is how a basket the TPP deleted is stored; it is
	// reported as RJCT (basketStatus), which the description allows.
	basketCancelled = "CANC"
)

// basketStatus is the basket's single status, "the worst case among its
// payments". Each payment counts as rejected (RJCT or CANC), awaiting SCA
// (RCVD) or authorised (any other status: ACTC and every later one), and
// the worst case is, in this order: RJCT when any payment was rejected or
// cancelled (or the TPP deleted the basket); RCVD while none is
// authorised; PATC when some are authorised and others still await SCA
// (partially accepted); ACTC when all are authorised.
func basketStatus(b *store.Basket, ps []*store.Payment) string {
	if b.Status == basketCancelled {
		return basketRejected
	}
	var received, accepted int
	for _, p := range ps {
		switch p.Status {
		case StatusRejected, StatusCancelled:
			return basketRejected
		case StatusReceived:
			received++
		default:
			accepted++
		}
	}
	switch {
	case accepted == 0:
		return basketReceived
	case received > 0:
		return basketPartiallyAccepted
	default:
		return basketAccepted
	}
}

// CreateBasket creates a signing basket of the TPP's payments awaiting SCA.
// The description's header table for basket creation requires PSU-ID,
// PSU-IP-Address and TPP-Session-ID: the PSU is present and known when a
// basket is made (the gateway's policy requires them too).
func (s *Service) CreateBasket(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	ctx := r.Context()
	switch {
	case c.PSUID == "":
		return bgerror.Format("PSU-ID", "PSU-ID is required to create a signing basket")
	case !c.PSUPresent:
		return bgerror.Format("PSU-IP-Address", "PSU-IP-Address is required to create a signing basket: the PSU is present")
	case r.Header.Get("Tpp-Session-Id") == "":
		return bgerror.Format("TPP-Session-ID", "TPP-Session-ID is required to create a signing basket")
	}
	if b, err := s.Store.GetBasketByRequest(ctx, c.TPP, c.RequestID); err == nil {
		return s.answerBasket(w, r, c, b, http.StatusCreated)
	}
	raw, e := respond.Body(r)
	if e != nil {
		return e
	}
	var in struct {
		PaymentIDs []string `json:"paymentIds"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return bgerror.Format("$", "the body must be {\"paymentIds\":[...]} with payment ids as strings")
	}
	if len(in.PaymentIDs) == 0 || len(in.PaymentIDs) > MaxBasketPayments {
		return bgerror.Format("$.paymentIds", "a basket holds 1 to 10 payment ids")
	}
	seen := map[string]bool{}
	for i, id := range in.PaymentIDs {
		path := "$.paymentIds[" + strconv.Itoa(i) + "]"
		if seen[id] {
			return bgerror.Format(path, "the payment id is listed twice")
		}
		seen[id] = true
		p, err := s.Store.GetPayment(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && p.TPP != c.TPP) {
			return bgerror.Format(path, "no payment of this TPP has this id")
		} else if err != nil {
			return s.storeError(err, "the payment")
		}
		if p.Kind != store.PaymentSingle {
			e := bgerror.New(bgerror.CodeReferenceMixInvalid, "bulk and periodic payments cannot be put in a signing basket")
			e.Path = path
			return e
		}
		if p.Status != StatusReceived {
			e := bgerror.New(bgerror.CodeReferenceStatus, "the payment is "+p.Status+": only payments awaiting authorisation can be put in a basket")
			e.Path = path
			return e
		}
	}
	b := &store.Basket{TPP: c.TPP, RequestID: c.RequestID, PaymentIDs: in.PaymentIDs, Status: StatusReceived}
	if err := s.Store.CreateBasket(ctx, b); errors.Is(err, store.ErrConflict) {
		if b, err = s.Store.GetBasketByRequest(ctx, c.TPP, c.RequestID); err != nil {
			return s.storeError(err, "the basket")
		}
	} else if err != nil {
		return s.storeError(err, "the basket")
	}
	return s.answerBasket(w, r, c, b, http.StatusCreated)
}

// basketPayments loads a basket's payments.
func (s *Service) basketPayments(r *http.Request, b *store.Basket) ([]*store.Payment, *bgerror.Error) {
	out := make([]*store.Payment, 0, len(b.PaymentIDs))
	for _, id := range b.PaymentIDs {
		p, err := s.Store.GetPayment(r.Context(), id)
		if err != nil {
			return nil, s.storeError(err, "a payment of the basket")
		}
		out = append(out, p)
	}
	return out, nil
}

func (s *Service) answerBasket(w http.ResponseWriter, r *http.Request, c *tppcontext.Context, b *store.Basket, status int) *bgerror.Error {
	ps, e := s.basketPayments(r, b)
	if e != nil {
		return e
	}
	st := basketStatus(b, ps)
	self := respond.Under(r, "/v1/signing-baskets/"+b.ID)
	links := map[string]respond.Link{"self": {Href: self, Verbs: []string{"GET", "DELETE"}}, "status": respond.Get(self + "/status")}
	if st == basketReceived && status == http.StatusCreated {
		f, e := s.Flows.Start(r.Context(), r, c, store.PurposeBasket, b.ID, true)
		if e != nil {
			return e
		}
		links["scaRedirect"] = respond.Get(s.Flows.Href(r, f.ID))
		w.Header().Set("Location", self)
	}
	body := map[string]any{"basketId": b.ID, "transactionStatus": st, "_links": links}
	if status != http.StatusCreated {
		// The creation answer has the description's members only
		// (basketId, transactionStatus, _links); a read lists the
		// payments, as Berlin Group's basket resource does.
		body["payments"] = b.PaymentIDs
	}
	respond.JSON(w, status, body)
	return nil
}

// basketState returns the TPP's basket of the path, its payments and its
// status (basketStatus).
func (s *Service) basketState(r *http.Request, c *tppcontext.Context) (*store.Basket, []*store.Payment, string, *bgerror.Error) {
	b, e := s.basketOf(r, c)
	if e != nil {
		return nil, nil, "", e
	}
	ps, e := s.basketPayments(r, b)
	if e != nil {
		return nil, nil, "", e
	}
	return b, ps, basketStatus(b, ps), nil
}

func (s *Service) basketOf(r *http.Request, c *tppcontext.Context) (*store.Basket, *bgerror.Error) {
	b, err := s.Store.GetBasket(r.Context(), r.PathValue("basketId"))
	if err != nil {
		return nil, s.storeError(err, "the basket")
	}
	if b.TPP != c.TPP {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the basket belongs to another TPP")
	}
	return b, nil
}

func (s *Service) GetBasket(statusOnly bool) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		if statusOnly {
			_, _, st, e := s.basketState(r, c)
			if e != nil {
				return e
			}
			respond.JSON(w, http.StatusOK, map[string]string{"transactionStatus": st})
			return nil
		}
		b, e := s.basketOf(r, c)
		if e != nil {
			return e
		}
		return s.answerBasket(w, r, c, b, http.StatusOK)
	}
}

// DeleteBasket cancels a basket nobody has authorised yet; its payments
// stay and can be authorised on their own.
func (s *Service) DeleteBasket(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	b, _, st, e := s.basketState(r, c)
	if e != nil {
		return e
	}
	if st != basketReceived {
		return bgerror.New(bgerror.CodeStatusInvalid, "the basket is "+st+": only a basket nobody has authorised (RCVD) can be deleted")
	}
	from := b.Status
	b.Status = basketCancelled
	ctx := r.Context()
	err := s.Store.Atomically(ctx, func(tx store.Store) error {
		// The basket's row first, as an authorisation takes it; then its
		// payments again: one the PSU authorised meanwhile keeps the
		// basket (authoriseFlowPayments).
		if err := tx.UpdateBasket(ctx, b, from); err != nil {
			return err
		}
		for _, id := range b.PaymentIDs {
			p, err := tx.GetPayment(ctx, id)
			if err != nil {
				return err
			}
			if p.Status != StatusReceived {
				return errBasketAuthorised
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errBasketAuthorised), errors.Is(err, store.ErrConflict):
		return bgerror.New(bgerror.CodeStatusInvalid, "the basket was authorised meanwhile: only a basket nobody has authorised (RCVD) can be deleted")
	case err != nil:
		return s.storeError(err, "the basket")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// errBasketAuthorised: a payment of the basket being deleted was
// authorised meanwhile.
var errBasketAuthorised = errors.New("a payment of the basket was authorised")

func (s *Service) StartBasketAuthorisation(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	b, _, st, e := s.basketState(r, c)
	if e != nil {
		return e
	}
	if st != basketReceived && st != basketPartiallyAccepted {
		return bgerror.New(bgerror.CodeStatusInvalid, "the basket is "+st+" and needs no authorisation")
	}
	f, e := s.Flows.Start(r.Context(), r, c, store.PurposeBasket, b.ID, true)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusCreated, map[string]any{"authorisationId": f.ID, "scaStatus": "received",
		"_links": map[string]respond.Link{"scaRedirect": respond.Get(s.Flows.Href(r, f.ID))}})
	return nil
}
