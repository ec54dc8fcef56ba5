package store

import (
	"encoding/json"
	"time"

	"github.com/obgw/obgw/backend/payments"
)

// CustomerType is PRIVATE or CORPORATE.
type CustomerType string

// Customer types.
const (
	CustomerPrivate   CustomerType = "PRIVATE"
	CustomerCorporate CustomerType = "CORPORATE"
)

// OwnerOf is the Owner of the customers, accounts and agreements TPP tpp
// deals with: in a sandbox deployment (inSandbox) the TPP's own sandbox,
// keyed by its organisation identifier; otherwise the bank's own
// customers ("").
func OwnerOf(inSandbox bool, tpp string) string {
	if inSandbox {
		return tpp
	}
	return ""
}

// Customer is a bank customer (a PSU, or a corporate that owns agreements).
type Customer struct {
	// ID is the opaque resource id.
	ID string
	// Owner is the organisation identifier of the TPP whose sandbox holds
	// the customer; empty for the bank's own customers (no sandbox).
	Owner string
	// Number is the national identification number (sandbox: the customer
	// number the PSU types at the SCA page). Unique per Owner.
	Number string
	// Name is the customer's name.
	Name string
	// Type is PRIVATE or CORPORATE.
	Type CustomerType
	// CreatedAt is when the customer was created.
	CreatedAt time.Time
}

// AccountKind tells an account from a card account.
type AccountKind string

// Account kinds.
const (
	KindAccount     AccountKind = "account"
	KindCardAccount AccountKind = "card"
)

// Account is an account or a card account.
type Account struct {
	// ID is the opaque resource id.
	ID string
	// CustomerID owns the account.
	CustomerID string
	// Owner is its customer's Owner (set by CreateAccount).
	Owner string
	// Kind is account or card.
	Kind AccountKind
	// Name is the account's name (up to 70 characters).
	Name string
	// Product is the product name.
	Product string
	// CashAccountType is the ISO 20022 code (CACC, SVGS, LOAN, CARD...).
	CashAccountType string
	// Currency is the ISO 4217 code.
	Currency string
	// BBAN and IBAN identify an account (empty for card accounts).
	BBAN, IBAN string
	// MaskedPAN identifies a card account.
	MaskedPAN string
	// CreditLimit is the credit line or card credit limit in minor units.
	CreditLimit int64
	// Status is enabled, deleted or blocked.
	Status string
	// Extra holds kind-specific fields as JSON (card id, expiry, ...).
	Extra json.RawMessage
	// CreatedAt is when the account was created.
	CreatedAt time.Time
}

// Balance is one balance of an account.
type Balance struct {
	// Type is the Berlin Group balance type (closingBooked, expected,
	// interimAvailable, authorised...).
	Type string
	// Amount is in minor units of Currency.
	Amount int64
	// Currency is the ISO 4217 code.
	Currency string
	// ReferenceDate is a civil date (YYYY-MM-DD), may be empty.
	ReferenceDate string
	// LastChange is when the balance last changed.
	LastChange time.Time
}

// Transaction is a booked or pending account or card transaction.
type Transaction struct {
	// ID is stable for booked transactions.
	ID string
	// AccountID is the account the transaction belongs to.
	AccountID string
	// Booked is true for booked, false for pending.
	Booked bool
	// Amount is signed minor units (negative: debit).
	Amount int64
	// Currency is the ISO 4217 code.
	Currency string
	// BookingDate and ValueDate are civil dates (YYYY-MM-DD).
	BookingDate, ValueDate string
	// Details holds the rest of the transaction (remittance information,
	// counterparties, card fields) as the JSON object to serve: whole from
	// GetTransaction, only the members its listing shows from
	// ListTransactions (see listMembers).
	Details json.RawMessage
	// CreatedAt orders transactions of the same booking date. The list
	// view (ListTransactions) orders by it without reading it back: it is
	// zero there.
	CreatedAt time.Time
}

// TransactionFilter selects transactions.
type TransactionFilter struct {
	// Booked and Pending select the statuses returned.
	Booked, Pending bool
	// DateFrom and DateTo bound the booking date (inclusive); empty: open.
	DateFrom, DateTo string
	// Limit and Offset page the booked list (0 Limit: no limit).
	Limit, Offset int
	// PendingFiltered applies DateFrom, DateTo, Limit and Offset to the
	// pending list as well (card accounts); otherwise every pending
	// transaction is returned.
	PendingFiltered bool
}

// Engagement gives a PSU rights on an account under an agreement.
type Engagement struct {
	// CustomerID is the PSU.
	CustomerID string
	// AccountID is the account.
	AccountID string
	// Roles are VIEW and/or REGISTER.
	Roles []string
}

// Agreement is a corporate agreement: the corporate owner lets PSUs act on
// its accounts.
type Agreement struct {
	// ID is the opaque resource id.
	ID string
	// OwnerID is the corporate customer.
	OwnerID string
	// Name is the agreement's name.
	Name string
	// Engagements are the PSUs' rights.
	Engagements []Engagement
	// CreatedAt is when the agreement was created.
	CreatedAt time.Time
}

// SCA flow states.
const (
	FlowPending = "pending"
	// FlowCompleting is a flow one request has claimed to act on (authorise
	// its payments, store its consent): concurrent submissions of the same
	// form wait for its outcome instead of acting again.
	FlowCompleting = "completing"
	FlowCompleted  = "completed"
	FlowFailed     = "failed"
)

// SCA flow purposes: what a flow authorises (SCAFlow.Purpose).
const (
	// PurposeConsent: a bank-offered consent; the PSU chooses accounts.
	PurposeConsent = "consent"
	// PurposeUser: SCA alone, for a PISP that is not an AISP (GET /v1/user).
	PurposeUser = "user"
	// PurposePayment: the PSU authorises one payment.
	PurposePayment = "payment"
	// PurposeBasket: the PSU authorises every payment of a signing basket
	// with one SCA.
	PurposeBasket = "basket"
	// PurposeCancellation: the PSU authorises cancelling a payment it has
	// already authorised.
	PurposeCancellation = "cancellation"
)

// SCAFlow is one run of the SCA redirect page.
type SCAFlow struct {
	// ID is the opaque id in the scaRedirect link.
	ID string
	// TPP is the organizationIdentifier of the TPP that started it.
	TPP string
	// TPPName is that TPP's registered name (from the gateway's context
	// token), which the PSU's pages show; empty when unknown.
	TPPName string
	// TPPSessionID is the TPP-Session-ID of the triggering request.
	TPPSessionID string
	// RedirectURI is the TPP-Redirect-URI of the triggering request.
	RedirectURI string
	// Purpose is what is authorised (consent, payment, basket, user,
	// cancellation).
	Purpose string
	// ResourceID is the payment or basket authorised, if any.
	ResourceID string
	// State is pending, completing, completed or failed.
	State string
	// CSRF is the anti-forgery token of the page's forms; it is replaced
	// when the PSU identifies.
	CSRF string
	// CustomerID, Context (PRIVATE/CORPORATE) and AgreementID are filled
	// in as the PSU goes through the page.
	CustomerID, Context, AgreementID string
	// SessionHash binds the flow to the browser that identified: the
	// SHA-256 (hex) of the secret in that browser's cookie, never the
	// secret. Once set, UpdateSCAFlow never replaces it with another.
	SessionHash string
	// BindKey is the random key the bound browser's secret was derived
	// from, with the cookie that browser had before identifying: the same
	// browser can be given its secret again (an identification submitted
	// twice at once); no other can derive it.
	BindKey string
	// IdentifyAttempts counts the identification attempts; only
	// CountSCAFlowAttempt changes it (UpdateSCAFlow leaves it alone).
	IdentifyAttempts int
	// Outcome is the query the flow's final redirect added to RedirectURI
	// (URL-encoded), kept so a duplicate submission answers the same.
	Outcome string
	// AppPreferred records the TPP-Redirect-Preferred: false of the
	// triggering request: the TPP prefers authentication in the bank's
	// app, which the identity provider is asked for where it offers it.
	AppPreferred bool
	// LoginState is the SHA-256 (hex) of the state of the authorization
	// request the PSU was last sent to the identity provider with; empty
	// when none is pending. TakeSCAFlowLogin clears it, once.
	LoginState string
	// Login is what that authorization request's answer is checked with
	// (nonce, PKCE verifier, the browser's cookie hash), opaque to the
	// store.
	Login string
	// CreatedAt and ExpiresAt bound the flow.
	CreatedAt, ExpiresAt time.Time
}

// Session is a TPP session after SCA (TPP-Session-ID), valid up to 1 hour.
type Session struct {
	// TPP and TPPSessionID identify the session.
	TPP, TPPSessionID string
	// CustomerID, Context and AgreementID are who authenticated, and how.
	CustomerID, Context, AgreementID string
	// ValidUntil is the end of the session.
	ValidUntil time.Time
	// Invalidated is set when a newer session of the same PSU completed SCA.
	Invalidated bool
	// CreatedAt is when SCA completed.
	CreatedAt time.Time
}

// Consent statuses (Berlin Group consentStatus).
const (
	ConsentValid           = "valid"
	ConsentRevokedByPSU    = "revokedByPsu"
	ConsentExpired         = "expired"
	ConsentTerminatedByTPP = "terminatedByTpp"
	ConsentReceived        = "received"
	ConsentRejected        = "rejected"
)

// Consent is a bank-offered consent: the accounts the PSU chose for a TPP.
type Consent struct {
	// ID is the opaque resource id.
	ID string
	// TPP is the TPP's organizationIdentifier.
	TPP string
	// CustomerID, Context and AgreementID are the PSU and how it consented.
	CustomerID, Context, AgreementID string
	// AccountIDs are the accounts and card accounts consented to.
	AccountIDs []string
	// Status is the consent status.
	Status string
	// CreatedAt, ValidUntil (180 days after SCA) and LastSCA.
	CreatedAt, ValidUntil, LastSCA time.Time
}

// Payment kinds.
const (
	PaymentSingle   = payments.KindSingle
	PaymentPeriodic = payments.KindPeriodic
	PaymentBulk     = payments.KindBulk
)

// Payment is a payment initiation (single, periodic or bulk).
type Payment struct {
	// ID is the opaque resource id.
	ID string
	// TPP is the initiating TPP's organizationIdentifier.
	TPP string
	// RequestID is the X-Request-ID of the creating request: one payment
	// per (TPP, RequestID), so a retried creation never makes two.
	RequestID string
	// Kind is single, periodic or bulk.
	Kind string
	// Product is the payment product.
	Product string
	// CustomerID is the PSU who authorised it (empty until SCA).
	CustomerID string
	// DebtorAccountID is the bank's account debited, when it is one.
	DebtorAccountID string
	// Amount and Currency are the instructed amount (minor units); for a
	// bulk payment the sum.
	Amount   int64
	Currency string
	// ExecutionDate is the requested execution date (YYYY-MM-DD).
	ExecutionDate string
	// Body is the validated initiation as served back (JSON,
	// payments.ServedForm): written out by a read, never parsed again.
	Body json.RawMessage
	// Instruction is the payment as the bank executes it, read from the
	// body once, when the payment was initiated (payments.Parse); stored
	// as its JSON (the tags of payments.Instruction). Migration 16 made it
	// for the payments stored before migration 6; one whose body did not
	// parse then has none (no Creditor).
	Instruction payments.Instruction
	// Status is the ISO 20022 transaction status.
	Status string
	// FundsAvailable is "", "true" or "false" (known after a funds check).
	FundsAvailable string
	// CreatedAt and UpdatedAt.
	CreatedAt, UpdatedAt time.Time
}

// Basket is a signing basket: payments authorised with one SCA.
type Basket struct {
	// ID is the opaque resource id.
	ID string
	// TPP is the TPP's organizationIdentifier.
	TPP string
	// RequestID is the X-Request-ID of the creating request.
	RequestID string
	// PaymentIDs are the payments, in order.
	PaymentIDs []string
	// CustomerID is the PSU who authorised it (empty until SCA).
	CustomerID string
	// Status is RCVD, ACTC, PATC or RJCT as last computed, or CANC.
	Status string
	// CreatedAt.
	CreatedAt time.Time
}
