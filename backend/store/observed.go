package store

import (
	"context"
	"encoding/json"
	"reflect"
	"time"
)

// Observed returns st with each of its operations timed: observe is told
// the operation (the method's name) and how long it took, whatever it
// returned. The operations of an Atomically view are timed too, and the
// Atomically call as a whole. observe runs on the caller's goroutine and
// must be cheap (a histogram's Observe).
func Observed(st Store, observe func(op string, took time.Duration)) Store {
	return observed{st: st, observe: observe}
}

// observed is Observed's Store. It embeds nothing: every method is
// written out below, so each one is timed (TestObservedTimesEveryMethod).
type observed struct {
	st      Store
	observe func(op string, took time.Duration)
}

var _ Store = observed{}

// Operations are the names Observed tells observe: every method of Store
// but Close.
func Operations() []string {
	t := reflect.TypeFor[Store]()
	out := make([]string, 0, t.NumMethod())
	for i := range t.NumMethod() {
		if name := t.Method(i).Name; name != "Close" {
			out = append(out, name)
		}
	}
	return out
}

// took tells observe how long op took since start.
func (o observed) took(op string, start time.Time) {
	o.observe(op, time.Since(start))
}

// Atomically times the whole transaction, and each operation of fn on the
// view.
func (o observed) Atomically(ctx context.Context, fn func(Store) error) error {
	defer o.took("Atomically", time.Now())
	return o.st.Atomically(ctx, func(view Store) error {
		return fn(observed{st: view, observe: o.observe})
	})
}

// Close is not timed.
func (o observed) Close() error { return o.st.Close() }

func (o observed) CreateCustomer(ctx context.Context, c *Customer) error {
	defer o.took("CreateCustomer", time.Now())
	return o.st.CreateCustomer(ctx, c)
}

func (o observed) GetCustomer(ctx context.Context, id string) (*Customer, error) {
	defer o.took("GetCustomer", time.Now())
	return o.st.GetCustomer(ctx, id)
}

func (o observed) GetCustomerByNumber(ctx context.Context, owner, number string) (*Customer, error) {
	defer o.took("GetCustomerByNumber", time.Now())
	return o.st.GetCustomerByNumber(ctx, owner, number)
}

func (o observed) ListCustomers(ctx context.Context, owner string) ([]Customer, error) {
	defer o.took("ListCustomers", time.Now())
	return o.st.ListCustomers(ctx, owner)
}

func (o observed) DeleteCustomer(ctx context.Context, id string) error {
	defer o.took("DeleteCustomer", time.Now())
	return o.st.DeleteCustomer(ctx, id)
}

func (o observed) CreateAccount(ctx context.Context, a *Account) error {
	defer o.took("CreateAccount", time.Now())
	return o.st.CreateAccount(ctx, a)
}

func (o observed) UpdateAccount(ctx context.Context, a *Account) error {
	defer o.took("UpdateAccount", time.Now())
	return o.st.UpdateAccount(ctx, a)
}

func (o observed) UpdateCustomer(ctx context.Context, c *Customer) error {
	defer o.took("UpdateCustomer", time.Now())
	return o.st.UpdateCustomer(ctx, c)
}

func (o observed) GetAccount(ctx context.Context, id string) (*Account, error) {
	defer o.took("GetAccount", time.Now())
	return o.st.GetAccount(ctx, id)
}

func (o observed) ListAccounts(ctx context.Context, kind AccountKind, ids []string) ([]Account, error) {
	defer o.took("ListAccounts", time.Now())
	return o.st.ListAccounts(ctx, kind, ids)
}

func (o observed) GetAccountByNumber(ctx context.Context, owner, iban, bban string) (*Account, error) {
	defer o.took("GetAccountByNumber", time.Now())
	return o.st.GetAccountByNumber(ctx, owner, iban, bban)
}

func (o observed) ListCustomerAccounts(ctx context.Context, customerID string) ([]Account, error) {
	defer o.took("ListCustomerAccounts", time.Now())
	return o.st.ListCustomerAccounts(ctx, customerID)
}

func (o observed) SetBalances(ctx context.Context, accountID string, b []Balance) error {
	defer o.took("SetBalances", time.Now())
	return o.st.SetBalances(ctx, accountID, b)
}

func (o observed) ListBalances(ctx context.Context, accountID string) ([]Balance, error) {
	defer o.took("ListBalances", time.Now())
	return o.st.ListBalances(ctx, accountID)
}

func (o observed) AddTransactions(ctx context.Context, accountID string, txs []Transaction) error {
	defer o.took("AddTransactions", time.Now())
	return o.st.AddTransactions(ctx, accountID, txs)
}

func (o observed) ListTransactions(ctx context.Context, accountID string, f TransactionFilter) (txs []Transaction, bookedTotal int, err error) {
	defer o.took("ListTransactions", time.Now())
	return o.st.ListTransactions(ctx, accountID, f)
}

func (o observed) GetTransaction(ctx context.Context, accountID, id string) (*Transaction, error) {
	defer o.took("GetTransaction", time.Now())
	return o.st.GetTransaction(ctx, accountID, id)
}

func (o observed) CreateAgreement(ctx context.Context, a *Agreement) error {
	defer o.took("CreateAgreement", time.Now())
	return o.st.CreateAgreement(ctx, a)
}

func (o observed) AgreementByName(ctx context.Context, ownerID, name string) (*Agreement, error) {
	defer o.took("AgreementByName", time.Now())
	return o.st.AgreementByName(ctx, ownerID, name)
}

func (o observed) BookedDetails(ctx context.Context, accountID string) ([]json.RawMessage, error) {
	defer o.took("BookedDetails", time.Now())
	return o.st.BookedDetails(ctx, accountID)
}

func (o observed) TrustDocument(ctx context.Context, name string) (*TrustDocument, error) {
	defer o.took("TrustDocument", time.Now())
	return o.st.TrustDocument(ctx, name)
}

func (o observed) PutTrustDocument(ctx context.Context, d *TrustDocument) error {
	defer o.took("PutTrustDocument", time.Now())
	return o.st.PutTrustDocument(ctx, d)
}

func (o observed) SetEngagements(ctx context.Context, id string, es []Engagement) error {
	defer o.took("SetEngagements", time.Now())
	return o.st.SetEngagements(ctx, id, es)
}

func (o observed) GetAgreement(ctx context.Context, id string) (*Agreement, error) {
	defer o.took("GetAgreement", time.Now())
	return o.st.GetAgreement(ctx, id)
}

func (o observed) ListAgreementsOf(ctx context.Context, customerID string) ([]Agreement, error) {
	defer o.took("ListAgreementsOf", time.Now())
	return o.st.ListAgreementsOf(ctx, customerID)
}

func (o observed) PSUID(ctx context.Context, tpp, customerID string) (string, error) {
	defer o.took("PSUID", time.Now())
	return o.st.PSUID(ctx, tpp, customerID)
}

func (o observed) CustomerByPSUID(ctx context.Context, tpp, psuID string) (*Customer, error) {
	defer o.took("CustomerByPSUID", time.Now())
	return o.st.CustomerByPSUID(ctx, tpp, psuID)
}

func (o observed) CorporateID(ctx context.Context, tpp, agreementID string) (string, error) {
	defer o.took("CorporateID", time.Now())
	return o.st.CorporateID(ctx, tpp, agreementID)
}

func (o observed) AgreementByCorporateID(ctx context.Context, tpp, corporateID string) (*Agreement, error) {
	defer o.took("AgreementByCorporateID", time.Now())
	return o.st.AgreementByCorporateID(ctx, tpp, corporateID)
}

func (o observed) ResolveAccess(ctx context.Context, tpp, psuID, tppSessionID, accountID string) (*Access, error) {
	defer o.took("ResolveAccess", time.Now())
	return o.st.ResolveAccess(ctx, tpp, psuID, tppSessionID, accountID)
}

func (o observed) CreateSCAFlow(ctx context.Context, f *SCAFlow) error {
	defer o.took("CreateSCAFlow", time.Now())
	return o.st.CreateSCAFlow(ctx, f)
}

func (o observed) GetSCAFlow(ctx context.Context, id string) (*SCAFlow, error) {
	defer o.took("GetSCAFlow", time.Now())
	return o.st.GetSCAFlow(ctx, id)
}

func (o observed) UpdateSCAFlow(ctx context.Context, f *SCAFlow, from string) error {
	defer o.took("UpdateSCAFlow", time.Now())
	return o.st.UpdateSCAFlow(ctx, f, from)
}

func (o observed) CountSCAFlowAttempt(ctx context.Context, id string) (int, error) {
	defer o.took("CountSCAFlowAttempt", time.Now())
	return o.st.CountSCAFlowAttempt(ctx, id)
}

func (o observed) SpendAllowance(ctx context.Context, key string, l Allowance, now time.Time) (bool, error) {
	defer o.took("SpendAllowance", time.Now())
	return o.st.SpendAllowance(ctx, key, l, now)
}

func (o observed) RefundAllowance(ctx context.Context, key string) error {
	defer o.took("RefundAllowance", time.Now())
	return o.st.RefundAllowance(ctx, key)
}

func (o observed) TakeSCAFlowLogin(ctx context.Context, id, stateHash string) (string, error) {
	defer o.took("TakeSCAFlowLogin", time.Now())
	return o.st.TakeSCAFlowLogin(ctx, id, stateHash)
}

func (o observed) CompleteSession(ctx context.Context, s *Session) error {
	defer o.took("CompleteSession", time.Now())
	return o.st.CompleteSession(ctx, s)
}

func (o observed) GetSession(ctx context.Context, tpp, tppSessionID string) (*Session, error) {
	defer o.took("GetSession", time.Now())
	return o.st.GetSession(ctx, tpp, tppSessionID)
}

func (o observed) CreateConsent(ctx context.Context, c *Consent) error {
	defer o.took("CreateConsent", time.Now())
	return o.st.CreateConsent(ctx, c)
}

func (o observed) GetConsent(ctx context.Context, id string) (*Consent, error) {
	defer o.took("GetConsent", time.Now())
	return o.st.GetConsent(ctx, id)
}

func (o observed) ListConsents(ctx context.Context, tpp, customerID string) ([]Consent, error) {
	defer o.took("ListConsents", time.Now())
	return o.st.ListConsents(ctx, tpp, customerID)
}

func (o observed) SetConsentStatus(ctx context.Context, id, status string) error {
	defer o.took("SetConsentStatus", time.Now())
	return o.st.SetConsentStatus(ctx, id, status)
}

func (o observed) CreatePayment(ctx context.Context, p *Payment) error {
	defer o.took("CreatePayment", time.Now())
	return o.st.CreatePayment(ctx, p)
}

func (o observed) GetPayment(ctx context.Context, id string) (*Payment, error) {
	defer o.took("GetPayment", time.Now())
	return o.st.GetPayment(ctx, id)
}

func (o observed) GetPaymentByRequest(ctx context.Context, tpp, requestID string) (*Payment, error) {
	defer o.took("GetPaymentByRequest", time.Now())
	return o.st.GetPaymentByRequest(ctx, tpp, requestID)
}

func (o observed) UpdatePayment(ctx context.Context, p *Payment, from string) error {
	defer o.took("UpdatePayment", time.Now())
	return o.st.UpdatePayment(ctx, p, from)
}

func (o observed) ListPaymentsDue(ctx context.Context, date, tpp string) ([]Payment, error) {
	defer o.took("ListPaymentsDue", time.Now())
	return o.st.ListPaymentsDue(ctx, date, tpp)
}

func (o observed) CreateBasket(ctx context.Context, b *Basket) error {
	defer o.took("CreateBasket", time.Now())
	return o.st.CreateBasket(ctx, b)
}

func (o observed) GetBasket(ctx context.Context, id string) (*Basket, error) {
	defer o.took("GetBasket", time.Now())
	return o.st.GetBasket(ctx, id)
}

func (o observed) GetBasketByRequest(ctx context.Context, tpp, requestID string) (*Basket, error) {
	defer o.took("GetBasketByRequest", time.Now())
	return o.st.GetBasketByRequest(ctx, tpp, requestID)
}

func (o observed) UpdateBasket(ctx context.Context, b *Basket, from string) error {
	defer o.took("UpdateBasket", time.Now())
	return o.st.UpdateBasket(ctx, b, from)
}

func (o observed) PutTPPContacts(ctx context.Context, c *TPPContacts) error {
	defer o.took("PutTPPContacts", time.Now())
	return o.st.PutTPPContacts(ctx, c)
}

func (o observed) GetTPPContacts(ctx context.Context, tpp string) (*TPPContacts, error) {
	defer o.took("GetTPPContacts", time.Now())
	return o.st.GetTPPContacts(ctx, tpp)
}

func (o observed) DeleteTPPContacts(ctx context.Context, tpp string) error {
	defer o.took("DeleteTPPContacts", time.Now())
	return o.st.DeleteTPPContacts(ctx, tpp)
}

func (o observed) ListTPPContacts(ctx context.Context) ([]TPPContacts, error) {
	defer o.took("ListTPPContacts", time.Now())
	return o.st.ListTPPContacts(ctx)
}

func (o observed) ListCustomerConsents(ctx context.Context, customerID string) ([]Consent, error) {
	defer o.took("ListCustomerConsents", time.Now())
	return o.st.ListCustomerConsents(ctx, customerID)
}

func (o observed) SealingKeys(ctx context.Context) ([]SealingKey, error) {
	defer o.took("SealingKeys", time.Now())
	return o.st.SealingKeys(ctx)
}

func (o observed) AddSealingKey(ctx context.Context, k *SealingKey) error {
	defer o.took("AddSealingKey", time.Now())
	return o.st.AddSealingKey(ctx, k)
}

func (o observed) Sweep(ctx context.Context, now time.Time, r Retention) (Swept, error) {
	defer o.took("Sweep", time.Now())
	return o.st.Sweep(ctx, now, r)
}

func (o observed) Lease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	defer o.took("Lease", time.Now())
	return o.st.Lease(ctx, name, holder, now, ttl)
}

func (o observed) LockAccounts(ctx context.Context, ids ...string) error {
	defer o.took("LockAccounts", time.Now())
	return o.st.LockAccounts(ctx, ids...)
}

func (o observed) SandboxClaimed(ctx context.Context, owner string) (bool, error) {
	defer o.took("SandboxClaimed", time.Now())
	return o.st.SandboxClaimed(ctx, owner)
}

func (o observed) ClaimSandbox(ctx context.Context, owner string) (bool, error) {
	defer o.took("ClaimSandbox", time.Now())
	return o.st.ClaimSandbox(ctx, owner)
}

func (o observed) DeleteSandbox(ctx context.Context, owner string) error {
	defer o.took("DeleteSandbox", time.Now())
	return o.st.DeleteSandbox(ctx, owner)
}

func (o observed) Ping(ctx context.Context) error {
	defer o.took("Ping", time.Now())
	return o.st.Ping(ctx)
}
