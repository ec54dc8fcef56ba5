package pis

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/fx"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Store is what the service reads and writes: the operations of the
// backend's store it uses. Writes of more than one row go through
// Atomically (or store.Shared), whose transaction is a whole store.Store.
type Store interface {
	store.Transactor
	GetPayment(ctx context.Context, id string) (*store.Payment, error)
	GetPaymentByRequest(ctx context.Context, tpp, requestID string) (*store.Payment, error)
	UpdatePayment(ctx context.Context, p *store.Payment, from string) error
	ListPaymentsDue(ctx context.Context, date, tpp string) ([]store.Payment, error)
	CreateBasket(ctx context.Context, b *store.Basket) error
	GetBasket(ctx context.Context, id string) (*store.Basket, error)
	GetBasketByRequest(ctx context.Context, tpp, requestID string) (*store.Basket, error)
	GetAccount(ctx context.Context, id string) (*store.Account, error)
	GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*store.Account, error)
	ListBalances(ctx context.Context, accountID string) ([]store.Balance, error)
	GetAgreement(ctx context.Context, id string) (*store.Agreement, error)
	CorporateID(ctx context.Context, tpp, agreementID string) (string, error)
	PSUID(ctx context.Context, tpp, customerID string) (string, error)
	GetSession(ctx context.Context, tpp, tppSessionID string) (*store.Session, error)
	GetSCAFlow(ctx context.Context, id string) (*store.SCAFlow, error)
}

// Flows is the SCA the service starts: a payment, a basket or a payment's
// cancellation is authorised in a flow whose ResourceID names it.
type Flows interface {
	// Start stores a new pending flow of purpose for the request.
	// anySession lets a request without TPP-Session-ID have one.
	Start(ctx context.Context, r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error)
	// New is the flow Start would store, for the caller to store in a
	// transaction of its own; Started then counts it started.
	New(r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error)
	Started()
	// Href is the link of flow id's SCA page for the request.
	Href(r *http.Request, id string) string
}

// Service serves the payment initiation routes. Its handlers take the
// request, its verified context token, and return the TPP's error, if any.
type Service struct {
	Store Store
	Flows Flows
	// Rates quotes the exchange rates of payments in another currency
	// than an account's (fx.go).
	Rates fx.Source
	// Sandbox: each TPP pays within its own sandbox, and a creditor named
	// HoldCreditorName puts an authorised payment on hold.
	Sandbox bool
	// Now is the clock.
	Now func() time.Time
	// Log takes what the TPP's answer cannot say (a store failure's cause).
	Log *slog.Logger
}

// storeError maps a store failure to the TPP's error, logged.
func (s *Service) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.Log, err, what)
}
