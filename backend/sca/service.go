package sca

import (
	"context"
	"log/slog"
	"time"

	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// Lifetimes from the interface description.
const (
	// SessionLifetime is how long a TPP-Session-ID stays valid after SCA.
	SessionLifetime = time.Hour
	// FlowLifetime is how long a PSU has to complete an SCA page flow.
	FlowLifetime = 15 * time.Minute
)

// Store is what the pages read and write: the operations of the
// backend's store they use.
type Store interface {
	CreateSCAFlow(ctx context.Context, f *store.SCAFlow) error
	GetSCAFlow(ctx context.Context, id string) (*store.SCAFlow, error)
	UpdateSCAFlow(ctx context.Context, f *store.SCAFlow, from string) error
	CountSCAFlowAttempt(ctx context.Context, id string) (int, error)
	TakeSCAFlowLogin(ctx context.Context, id, stateHash string) (string, error)
	CompleteSession(ctx context.Context, s *store.Session) error
	GetCustomer(ctx context.Context, id string) (*store.Customer, error)
	GetCustomerByNumber(ctx context.Context, owner, number string) (*store.Customer, error)
	PSUID(ctx context.Context, tpp, customerID string) (string, error)
	CorporateID(ctx context.Context, tpp, agreementID string) (string, error)
	GetAgreement(ctx context.Context, id string) (*store.Agreement, error)
	ListAgreementsOf(ctx context.Context, customerID string) ([]store.Agreement, error)
	ListAccounts(ctx context.Context, kind store.AccountKind, ids []string) ([]store.Account, error)
	ListCustomerAccounts(ctx context.Context, customerID string) ([]store.Account, error)
	GetConsent(ctx context.Context, id string) (*store.Consent, error)
	ListConsents(ctx context.Context, tpp, customerID string) ([]store.Consent, error)
	ListCustomerConsents(ctx context.Context, customerID string) ([]store.Consent, error)
	SetConsentStatus(ctx context.Context, id, status string) error
	SealingKeys(ctx context.Context) ([]store.SealingKey, error)
	AddSealingKey(ctx context.Context, k *store.SealingKey) error
	SpendAllowance(ctx context.Context, key string, l store.Allowance, now time.Time) (bool, error)
	RefundAllowance(ctx context.Context, key string) error
}

// Payments is what the flows of payments authorise (pis.Service): a
// payment's, a basket's, a payment cancellation's. Flows of other
// purposes are none of its business, and it leaves them alone.
type Payments interface {
	// Authorise does what flow f authorises: nil when all of it is done;
	// else the PSU's outcome, authorised when the SCA took effect anyway.
	Authorise(ctx context.Context, f *store.SCAFlow) (outcome *bgerror.Error, authorised bool)
	// Reject rejects f's payments still awaiting SCA (it failed).
	Reject(ctx context.Context, f *store.SCAFlow)
	// Withdrawn is f's outcome when the TPP withdrew what it authorises.
	Withdrawn(ctx context.Context, f *store.SCAFlow) *bgerror.Error
	// Summary describes f's payments for the PSU.
	Summary(ctx context.Context, f *store.SCAFlow) []string
}

// Consents stores what a consent flow authorises (ais.Service).
type Consents interface {
	// Grant stores the consent of flow f for the accounts chosen, as
	// authorised at now (the instant its session starts too).
	Grant(ctx context.Context, f *store.SCAFlow, chosen []string, now time.Time) error
}

// Config builds a Service.
type Config struct {
	Store    Store
	Payments Payments
	Consents Consents
	// Sandbox: the pages identify PSUs by a customer number typed in
	// when there is no IdP, within the sandbox of the flow's TPP.
	Sandbox bool
	// Now is the clock.
	Now func() time.Time
	// Logger takes what the pages cannot tell the PSU.
	Logger *slog.Logger
	// IdP authenticates PSUs at the bank's OpenID Connect identity
	// provider (login.go). Without it PSUs identify by a customer number
	// typed in, which only a Sandbox offers: elsewhere the pages answer
	// 503.
	IdP *idp.RelyingParty
	// IdPRedirectURL is the redirect URI registered at the provider;
	// empty: the request's host and base path, over https.
	IdPRedirectURL string
	// ObserveSCA, when set, is told each step of the SCA funnel
	// (funnel.go): the step, and a failed flow's reason.
	ObserveSCA func(step, reason string)
}

// Service serves the PSU's pages and starts the flows of the concerns.
type Service struct {
	cfg  Config
	log  *slog.Logger
	seal *sealer // sealed SCA links (seal.go)
	// ident identifies PSUs on the pages (identifier.go); nil outside
	// the sandbox without an identity provider.
	ident psuIdentifier
}

// New returns the Service of cfg. Every field but IdP, IdPRedirectURL
// and ObserveSCA must be set (Store may be left out only by a Service
// that serves nothing, such as one built to list routes): New panics
// without Payments, Consents, Now or Logger, which every page needs.
func New(cfg Config) *Service {
	if cfg.Payments == nil || cfg.Consents == nil || cfg.Now == nil || cfg.Logger == nil {
		panic("sca.New: Payments, Consents, Now and Logger are required")
	}
	s := &Service{cfg: cfg, log: cfg.Logger, seal: &sealer{st: cfg.Store, now: cfg.Now}}
	switch {
	case cfg.IdP != nil:
		s.ident = providerIdentifier{s}
	case cfg.Sandbox:
		s.ident = mockIdentifier{s}
	}
	return s
}

// identifies reports whether the pages can identify a PSU: at the bank's
// identity provider, or by the sandbox's mock.
func (s *Service) identifies() bool { return s.ident != nil }

// storeError maps a store failure to the TPP's error, logged.
func (s *Service) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.log, err, what)
}
