package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Errors every implementation returns.
var (
	// ErrNotFound: no such resource.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a unique value (customer number, account IBAN, ...) is
	// taken, or a compare-and-set lost.
	ErrConflict = errors.New("store: conflict")
	// ErrUnavailable wraps failures to reach the database, so callers can
	// answer 503 rather than 500.
	ErrUnavailable = errors.New("store: database unavailable")
	// ErrInvalid: a value the store refuses to keep (unknown enum value,
	// malformed date or JSON): a bug in the caller's validation.
	ErrInvalid = errors.New("store: invalid value")
)

// Transactor runs fn in one transaction of a store: what Atomically and
// Shared need of the store they write to.
type Transactor interface {
	Atomically(ctx context.Context, fn func(Store) error) error
}

// Store is the backend's persistence. Implementations are safe for
// concurrent use by many goroutines and many processes on one database.
type Store interface {
	// CreateCustomer stores c, assigning ID and CreatedAt.
	CreateCustomer(ctx context.Context, c *Customer) error
	// GetCustomer returns a customer by ID.
	GetCustomer(ctx context.Context, id string) (*Customer, error)
	// GetCustomerByNumber returns the customer of owner's sandbox (the
	// bank's own customers: "") with a national identification number.
	GetCustomerByNumber(ctx context.Context, owner, number string) (*Customer, error)
	// ListCustomers returns the customers of owner's sandbox (the bank's
	// own: ""), oldest first.
	ListCustomers(ctx context.Context, owner string) ([]Customer, error)
	// DeleteCustomer removes a customer and everything that hangs off it
	// (accounts, balances, transactions, agreements, consents, sessions).
	DeleteCustomer(ctx context.Context, id string) error

	// CreateAccount stores a, assigning ID and CreatedAt.
	CreateAccount(ctx context.Context, a *Account) error
	// UpdateAccount writes a's name, product, cash account type, credit
	// limit, status and extra fields.
	UpdateAccount(ctx context.Context, a *Account) error
	// UpdateCustomer writes c's name and type.
	UpdateCustomer(ctx context.Context, c *Customer) error
	// GetAccount returns an account or card account by ID.
	GetAccount(ctx context.Context, id string) (*Account, error)
	// ListAccounts returns the accounts of kind (either kind when "") with
	// the given IDs, in the order of ids; unknown and repeated ids are
	// skipped.
	ListAccounts(ctx context.Context, kind AccountKind, ids []string) ([]Account, error)
	// GetAccountByNumber returns the account of owner's sandbox (the bank's
	// own: "") with iban (or bban when iban
	// is empty).
	GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*Account, error)
	// ListCustomerAccounts returns a customer's accounts of every kind.
	ListCustomerAccounts(ctx context.Context, customerID string) ([]Account, error)

	// SetBalances replaces an account's balances.
	SetBalances(ctx context.Context, accountID string, b []Balance) error
	// ListBalances returns an account's balances.
	ListBalances(ctx context.Context, accountID string) ([]Balance, error)

	// AddTransactions stores all of txs atomically (all or none), assigning
	// IDs and, where zero, CreatedAt (later elements of a batch newer).
	AddTransactions(ctx context.Context, accountID string, txs []Transaction) error
	// ListTransactions returns an account's transactions matching f: booked
	// newest booking date first, then pending (never filtered by dates nor
	// paged); and the total number of booked transactions matching before
	// paging (0 unless f.Booked). It is the list view: the details without
	// their extra part, and no CreatedAt (GetTransaction has both).
	ListTransactions(ctx context.Context, accountID string, f TransactionFilter) (txs []Transaction, bookedTotal int, err error)
	// BookedDetails returns the whole details of an account's booked
	// transactions.
	BookedDetails(ctx context.Context, accountID string) ([]json.RawMessage, error)
	// GetTransaction returns one transaction of an account.
	GetTransaction(ctx context.Context, accountID, id string) (*Transaction, error)

	// CreateAgreement stores a, assigning ID and CreatedAt.
	CreateAgreement(ctx context.Context, a *Agreement) error
	// AgreementByName returns owner's oldest agreement called name.
	AgreementByName(ctx context.Context, ownerID, name string) (*Agreement, error)
	// SetEngagements replaces an agreement's engagements.
	SetEngagements(ctx context.Context, id string, es []Engagement) error
	// GetAgreement returns an agreement by ID.
	GetAgreement(ctx context.Context, id string) (*Agreement, error)
	// ListAgreementsOf returns the agreements in which customerID has an
	// engagement.
	ListAgreementsOf(ctx context.Context, customerID string) ([]Agreement, error)

	// PSUID returns the PSU-ID of customerID towards tpp, creating a new
	// random UUID the first time. It is stable per (TPP, customer) and
	// differs across TPPs.
	PSUID(ctx context.Context, tpp, customerID string) (string, error)
	// CustomerByPSUID resolves a PSU-ID sent by tpp.
	CustomerByPSUID(ctx context.Context, tpp, psuID string) (*Customer, error)
	// CorporateID returns the PSU-Corporate-ID of agreementID towards tpp,
	// creating it the first time (stable, per TPP).
	CorporateID(ctx context.Context, tpp, agreementID string) (string, error)
	// AgreementByCorporateID resolves a PSU-Corporate-ID sent by tpp.
	AgreementByCorporateID(ctx context.Context, tpp, corporateID string) (*Agreement, error)

	// ResolveAccess returns in one statement the customer tpp's PSU-ID
	// psuID names, tpp's session tppSessionID (when not empty, nil when
	// not stored), the customer's consents to tpp with their accounts,
	// newest first, and the account accountID (when not empty, nil when
	// not stored); an unknown PSU-ID is ErrNotFound.
	ResolveAccess(ctx context.Context, tpp, psuID, tppSessionID, accountID string) (*Access, error)

	// CreateSCAFlow stores f, assigning CreatedAt, and ID unless f.ID is
	// already set (a flow opened from a sealed link; a taken ID is
	// ErrConflict).
	CreateSCAFlow(ctx context.Context, f *SCAFlow) error
	// GetSCAFlow returns a flow by ID.
	GetSCAFlow(ctx context.Context, id string) (*SCAFlow, error)
	// UpdateSCAFlow writes f if the stored flow is still in state from and
	// not bound to another browser; otherwise ErrConflict (a form submitted
	// twice, or in two tabs).
	UpdateSCAFlow(ctx context.Context, f *SCAFlow, from string) error
	// CountSCAFlowAttempt counts one identification attempt on a pending
	// flow, atomically, and returns the count so far.
	CountSCAFlowAttempt(ctx context.Context, id string) (int, error)
	// TakeSCAFlowLogin ends a pending flow's pending login (the identity
	// provider's answer to it arrived) and returns its Login, exactly once
	// per login; any other call is ErrConflict.
	TakeSCAFlowLogin(ctx context.Context, id, stateHash string) (string, error)

	// CompleteSession records a successful SCA as session s. When another
	// valid session of the same TPP and customer exists, it is invalidated
	// (the description's table: a completed new session invalidates the old
	// id). It stores the session and its invalidations atomically.
	CompleteSession(ctx context.Context, s *Session) error
	// GetSession returns a session by (TPP, TPP-Session-ID).
	GetSession(ctx context.Context, tpp, tppSessionID string) (*Session, error)

	// CreateConsent stores c, assigning CreatedAt, and ID unless c.ID is
	// already set (a taken ID is ErrConflict).
	CreateConsent(ctx context.Context, c *Consent) error
	// GetConsent returns a consent by ID.
	GetConsent(ctx context.Context, id string) (*Consent, error)
	// ListConsents returns the consents of tpp for customerID, newest first.
	ListConsents(ctx context.Context, tpp, customerID string) ([]Consent, error)
	// SetConsentStatus changes a consent's status.
	SetConsentStatus(ctx context.Context, id, status string) error

	// CreatePayment stores p, assigning ID and times; a second payment with
	// the same (TPP, RequestID) is ErrConflict.
	CreatePayment(ctx context.Context, p *Payment) error
	// GetPayment returns a payment by ID.
	GetPayment(ctx context.Context, id string) (*Payment, error)
	// GetPaymentByRequest returns the payment a TPP created with requestID.
	GetPaymentByRequest(ctx context.Context, tpp, requestID string) (*Payment, error)
	// UpdatePayment writes status, PSU, debtor account and funds flag if
	// the stored status is still from (else ErrConflict).
	UpdatePayment(ctx context.Context, p *Payment, from string) error
	// ListPaymentsDue returns authorised single and bulk payments of TPP
	// tpp (every TPP's when "") due on or before date (YYYY-MM-DD).
	ListPaymentsDue(ctx context.Context, date, tpp string) ([]Payment, error)
	// CreateBasket stores b with its payment ids, assigning ID and CreatedAt.
	CreateBasket(ctx context.Context, b *Basket) error
	// GetBasket returns a basket by ID.
	GetBasket(ctx context.Context, id string) (*Basket, error)
	// GetBasketByRequest returns the basket a TPP created with requestID.
	GetBasketByRequest(ctx context.Context, tpp, requestID string) (*Basket, error)
	// UpdateBasket writes status and PSU if the stored status is still from.
	UpdateBasket(ctx context.Context, b *Basket, from string) error

	// PutTPPContacts replaces the contact addresses of c.TPP, assigning
	// UpdatedAt.
	PutTPPContacts(ctx context.Context, c *TPPContacts) error
	// GetTPPContacts returns the contact addresses registered for tpp.
	GetTPPContacts(ctx context.Context, tpp string) (*TPPContacts, error)
	// DeleteTPPContacts removes the contact addresses of tpp (ErrNotFound
	// when there are none).
	DeleteTPPContacts(ctx context.Context, tpp string) error
	// ListTPPContacts returns every TPP's contact addresses, by TPP, for
	// the bank's operators (never served to TPPs).
	ListTPPContacts(ctx context.Context) ([]TPPContacts, error)

	// ListCustomerConsents returns every consent customerID gave, to any
	// TPP, newest first.
	ListCustomerConsents(ctx context.Context, customerID string) ([]Consent, error)

	// SealingKeys returns the keys that seal SCA links, newest first.
	SealingKeys(ctx context.Context) ([]SealingKey, error)
	// AddSealingKey stores k, assigning CreatedAt.
	AddSealingKey(ctx context.Context, k *SealingKey) error

	// SpendAllowance spends one attempt of key's allowance before the
	// attempt is made, and reports whether one was left (allowances.go);
	// RefundAllowance gives one back for a guess that was right.
	SpendAllowance(ctx context.Context, key string, l Allowance, now time.Time) (bool, error)
	RefundAllowance(ctx context.Context, key string) error

	// Sweep deletes SCA flows, sessions, consents, sealing keys and
	// allowances past their retention (retention.go).
	Sweep(ctx context.Context, now time.Time, r Retention) (Swept, error)
	// TrustDocument returns the last good copy of a trust source.
	TrustDocument(ctx context.Context, name string) (*TrustDocument, error)
	// PutTrustDocument stores a trust source's copy, unless a newer one
	// is stored.
	PutTrustDocument(ctx context.Context, d *TrustDocument) error
	// Lease makes holder the one instance running job name until
	// now+ttl, unless another holder's lease runs; it reports whether
	// holder has it.
	Lease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)

	// Atomically runs fn against a view of the store inside one database
	// transaction: everything fn writes lands together or not at all.
	Atomically(ctx context.Context, fn func(Store) error) error
	// LockAccounts locks account rows until the Atomically transaction ends
	// (in id order), for balance read-modify-writes.
	LockAccounts(ctx context.Context, ids ...string) error
	// SandboxClaimed reports whether owner's sandbox is recorded (seeded).
	SandboxClaimed(ctx context.Context, owner string) (bool, error)
	// ClaimSandbox records owner's sandbox; created says it is new (and
	// is to be seeded, in the same Atomically transaction).
	ClaimSandbox(ctx context.Context, owner string) (created bool, err error)
	// DeleteSandbox removes the customers of owner's sandbox with what
	// hangs off them, and everything TPP owner made: flows, sessions,
	// consents, PSU-IDs, payments, baskets (not its contacts). For the
	// sandbox reset, inside Atomically.
	DeleteSandbox(ctx context.Context, owner string) error

	// Ping checks that the database answers (readiness).
	Ping(ctx context.Context) error

	// Close releases the database.
	Close() error
}
