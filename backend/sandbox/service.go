package sandbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// Store is what the sandbox's operations and its data set read and
// write: the operations of the backend's store they use. Writes of more
// than one row go through Atomically, whose transaction is a whole
// store.Store.
type Store interface {
	store.Transactor
	ClaimSandbox(ctx context.Context, owner string) (bool, error)
	SandboxClaimed(ctx context.Context, owner string) (bool, error)
	DeleteSandbox(ctx context.Context, owner string) error
	CreateCustomer(ctx context.Context, c *store.Customer) error
	GetCustomer(ctx context.Context, id string) (*store.Customer, error)
	GetCustomerByNumber(ctx context.Context, owner, number string) (*store.Customer, error)
	ListCustomers(ctx context.Context, owner string) ([]store.Customer, error)
	UpdateCustomer(ctx context.Context, c *store.Customer) error
	DeleteCustomer(ctx context.Context, id string) error
	GetAccount(ctx context.Context, id string) (*store.Account, error)
	ListCustomerAccounts(ctx context.Context, customerID string) ([]store.Account, error)
	ListBalances(ctx context.Context, accountID string) ([]store.Balance, error)
	CreateAgreement(ctx context.Context, a *store.Agreement) error
	GetAgreement(ctx context.Context, id string) (*store.Agreement, error)
	ListAgreementsOf(ctx context.Context, customerID string) ([]store.Agreement, error)
	GetConsent(ctx context.Context, id string) (*store.Consent, error)
	SetConsentStatus(ctx context.Context, id, status string) error
	SpendAllowance(ctx context.Context, key string, l store.Allowance, now time.Time) (bool, error)
}

// Service serves the sandbox's operations (POST /v1/sandbox/initialize,
// the mock customers, accounts, balances, transactions and agreements, a
// PSU's revocation of a consent) and opens each TPP's sandbox at its first
// call (Open). The backend registers its routes in a sandbox deployment
// only. Its handlers take the request, its verified context token, and
// return the TPP's error, if any.
type Service struct {
	Store Store
	// Now is the clock.
	Now func() time.Time
	// Log takes what the TPP's answer cannot say (a store failure's cause).
	Log *slog.Logger
	// seeded are the TPPs whose sandbox this process knows seeded
	// (open.go).
	seeded sync.Map
}

// ownerOf is the owner of the customers TPP tpp deals with: its own
// sandbox (the service serves a sandbox deployment only).
func ownerOf(tpp string) string { return store.OwnerOf(true, tpp) }

// storeError maps a store failure to the TPP's error, logged.
func (s *Service) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.Log, err, what)
}
