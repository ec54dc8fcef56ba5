package ais

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Lifetimes and sizes from the interface description.
const (
	// ConsentLifetime is how long a consent (and SCA for account access) lasts.
	ConsentLifetime = 180 * 24 * time.Hour
	// HistoryWithoutPSU is how far back transactions are served when the PSU
	// is not present.
	HistoryWithoutPSU = 90 * 24 * time.Hour
	// DefaultPageSize is the transaction page size without a limit.
	DefaultPageSize = 200
)

// Store is what the service reads and writes: the operations of the
// backend's store it uses.
type Store interface {
	ResolveAccess(ctx context.Context, tpp, psuID, tppSessionID, accountID string) (*store.Access, error)
	AgreementByCorporateID(ctx context.Context, tpp, corporateID string) (*store.Agreement, error)
	ListAgreementsOf(ctx context.Context, customerID string) ([]store.Agreement, error)
	CorporateID(ctx context.Context, tpp, agreementID string) (string, error)
	CreateConsent(ctx context.Context, c *store.Consent) error
	GetConsent(ctx context.Context, id string) (*store.Consent, error)
	ListConsents(ctx context.Context, tpp, customerID string) ([]store.Consent, error)
	SetConsentStatus(ctx context.Context, id, status string) error
	GetSCAFlow(ctx context.Context, id string) (*store.SCAFlow, error)
	GetAccount(ctx context.Context, id string) (*store.Account, error)
	ListAccounts(ctx context.Context, kind store.AccountKind, ids []string) ([]store.Account, error)
	ListBalances(ctx context.Context, accountID string) ([]store.Balance, error)
	ListTransactions(ctx context.Context, accountID string, f store.TransactionFilter) ([]store.Transaction, int, error)
	GetTransaction(ctx context.Context, accountID, id string) (*store.Transaction, error)
}

// Flows is the SCA the service starts and reads: a consent is authorised
// in a flow of purpose store.PurposeConsent, whose id is the consent's.
type Flows interface {
	// Start stores a new pending flow of purpose for the request.
	// anySession lets a request without TPP-Session-ID have one.
	Start(ctx context.Context, r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error)
	// Required is the 401 of code and text that carries a new consent
	// flow's scaRedirect.
	Required(ctx context.Context, r *http.Request, c *tppcontext.Context, code, text string) *bgerror.Error
	// Href is the link of flow id's SCA page for the request.
	Href(r *http.Request, id string) string
	// Withdraw ends pending flow f as withdrawn by its TPP; store.ErrConflict
	// when f was no longer pending.
	Withdraw(ctx context.Context, f *store.SCAFlow) error
	// Withdrawn reports whether flow f ended withdrawn by its TPP.
	Withdrawn(f *store.SCAFlow) bool
}

// Service serves the account information routes. Its handlers take the
// request, its verified context token, and return the TPP's error, if any.
type Service struct {
	Store Store
	Flows Flows
	// Now is the clock.
	Now func() time.Time
	// Log takes what the TPP's answer cannot say (a store failure's cause).
	Log *slog.Logger
}

// storeError maps a store failure to the TPP's error, logged.
func (s *Service) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.Log, err, what)
}
