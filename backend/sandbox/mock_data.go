package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/ledger"
	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/sandbox/mockdata"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Resets is how often one TPP resets its sandbox: twice at once,
// then once every 10 seconds, counted on every instance together (the
// store's allowance "reset:<TPP>"). A reset rewrites the TPP's whole data
// set in one transaction, which on SQLite holds every other writer: a TPP
// looping resets would slow every other TPP's consents and payments.
var Resets = store.Allowance{Burst: 2, Every: 10 * time.Second}

// Initialize resets the caller's sandbox and answers its customers, as GET
// /v1/sandbox/customers does, and a "notice" saying what the reset ended
// (a member clients that read the customers skip). Resets beyond the
// allowance Resets are 429 ACCESS_EXCEEDED with Retry-After.
func (s *Service) Initialize(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	ok, err := s.Store.SpendAllowance(r.Context(), "reset:"+c.TPP, Resets, s.Now())
	if err != nil {
		return s.storeError(err, "the sandbox")
	}
	if !ok {
		// A refused reset holds the next one back one period more
		// (store.SpendAllowance): the retry comes after two.
		e := bgerror.New(bgerror.CodeAccessExceeded, "your sandbox was reset twice within 10 seconds; one reset every 10 seconds is allowed: retry in 20 seconds")
		e.RetryAfter = int(2 * Resets.Every.Seconds())
		return e
	}
	if err := Reset(r.Context(), s.Store, ownerOf(c.TPP), s.Now()); err != nil {
		return s.storeError(err, "the sandbox")
	}
	out, e := s.mockCustomers(r, c)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusOK, map[string]any{"customers": out, "notice": ResetNotice})
	return nil
}

func customerJSON(r *http.Request, c *store.Customer) map[string]any {
	return map[string]any{
		"customerId":     c.ID,
		"customerNumber": c.Number,
		"customerType":   string(c.Type),
		"customerName":   c.Name,
		"_links":         map[string]respond.Link{"self": {Href: respond.Under(r, "/v1/sandbox/customers/"+c.ID), Verbs: []string{"GET", "PUT", "DELETE"}}},
	}
}

func (s *Service) ListCustomers(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	out, e := s.mockCustomers(r, c)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusOK, map[string]any{"customers": out})
	return nil
}

// mockCustomers is the list of customers of the caller's sandbox the
// mock-data operations answer.
func (s *Service) mockCustomers(r *http.Request, c *tppcontext.Context) ([]map[string]any, *bgerror.Error) {
	cs, err := s.Store.ListCustomers(r.Context(), ownerOf(c.TPP))
	if err != nil {
		return nil, s.storeError(err, "the customers")
	}
	out := make([]map[string]any, 0, len(cs))
	for i := range cs {
		out = append(out, customerJSON(r, &cs[i]))
	}
	return out, nil
}

func (s *Service) CreateCustomer(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	body, e := respond.Body(r)
	if e != nil {
		return e
	}
	in, errs := mockdata.ParseCustomer(body, s.Now())
	if len(errs) > 0 {
		return respond.FieldErrors(errs)
	}
	c := &store.Customer{Owner: ownerOf(tpp.TPP), Number: in.Number, Name: in.Name, Type: store.CustomerType(in.Type)}
	if err := s.Store.CreateCustomer(r.Context(), c); errors.Is(err, store.ErrConflict) {
		return bgerror.Format("$.customerNumber", "a customer with this customer number exists")
	} else if err != nil {
		return s.storeError(err, "the customer")
	}
	w.Header().Set("Location", respond.Under(r, "/v1/sandbox/customers/"+c.ID))
	respond.JSON(w, http.StatusCreated, customerJSON(r, c))
	return nil
}

func (s *Service) GetCustomer(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	c, e := s.mockCustomer(r, tpp)
	if e != nil {
		return e
	}
	respond.JSON(w, http.StatusOK, customerJSON(r, c))
	return nil
}

func (s *Service) DeleteCustomer(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	c, e := s.mockCustomer(r, tpp)
	if e != nil {
		return e
	}
	if err := s.Store.DeleteCustomer(r.Context(), c.ID); err != nil {
		return s.storeError(err, "the customer")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// mockCustomer returns the customer of the path, of the caller's sandbox:
// another TPP's is as unknown as one that never was.
func (s *Service) mockCustomer(r *http.Request, tpp *tppcontext.Context) (*store.Customer, *bgerror.Error) {
	c, err := s.Store.GetCustomer(r.Context(), r.PathValue("customerId"))
	if err == nil && c.Owner != ownerOf(tpp.TPP) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, s.storeError(err, "the customer")
	}
	return c, nil
}

// customerByNumber finds the customer of the caller's sandbox named in a
// mock-data body.
func (s *Service) customerByNumber(ctx context.Context, tpp *tppcontext.Context, number, path string) (*store.Customer, *bgerror.Error) {
	c, err := s.Store.GetCustomerByNumber(ctx, ownerOf(tpp.TPP), number)
	if errors.Is(err, store.ErrNotFound) {
		return nil, bgerror.Format(path, "no customer has this customer number; create it with POST /v1/sandbox/customers")
	} else if err != nil {
		return nil, s.storeError(err, "the customer")
	}
	return c, nil
}

// mockAccountJSON is a mock account as the AIS endpoints would show it, with
// its id and links.
func (s *Service) mockAccountJSON(r *http.Request, a *store.Account) (map[string]any, error) {
	bs, err := s.Store.ListBalances(r.Context(), a.ID)
	if err != nil {
		return nil, err
	}
	m := resource.Account(r, a, bs)
	m["id"] = a.ID
	base := respond.Under(r, "/v1/sandbox"+strings.TrimPrefix(resource.Collection(a.Kind), "/v1")+"/"+a.ID)
	m["_links"] = map[string]respond.Link{
		"self":         {Href: base, Verbs: []string{"GET", "PUT"}},
		"balances":     {Href: base + "/balances", Verbs: []string{"PUT"}},
		"transactions": {Href: base + "/transactions", Verbs: []string{"POST"}},
	}
	return m, nil
}

func (s *Service) CreateAccount(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
		body, e := respond.Body(r)
		if e != nil {
			return e
		}
		now := s.Now()
		a, owner, balances, e := mockdata.AccountOf(kind, body, now)
		if e != nil {
			return e
		}
		c, e := s.customerByNumber(r.Context(), tpp, owner, "$.customerNumber")
		if e != nil {
			return e
		}
		a.CustomerID = c.ID
		err := s.Store.Atomically(r.Context(), func(tx store.Store) error {
			if err := tx.CreateAccount(r.Context(), a); err != nil {
				return err
			}
			return ledger.SetBalances(r.Context(), tx, a, balances, true, now)
		})
		if errors.Is(err, store.ErrConflict) {
			return bgerror.Format("$.iban", "an account with this IBAN or BBAN exists")
		} else if err != nil {
			return s.storeError(err, "the account")
		}
		m, err := s.mockAccountJSON(r, a)
		if err != nil {
			return s.storeError(err, "the account")
		}
		w.Header().Set("Location", m["_links"].(map[string]respond.Link)["self"].Href)
		respond.JSON(w, http.StatusCreated, m)
		return nil
	}
}

// mockAccount returns the account or card account of the path, of the
// caller's sandbox.
func (s *Service) mockAccount(r *http.Request, tpp *tppcontext.Context, kind store.AccountKind) (*store.Account, *bgerror.Error) {
	a, err := s.Store.GetAccount(r.Context(), r.PathValue("mockId"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (a.Kind != kind || a.Owner != ownerOf(tpp.TPP))) {
		return nil, bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such mock account")
	} else if err != nil {
		return nil, s.storeError(err, "the account")
	}
	return a, nil
}

func (s *Service) GetAccount(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
		a, e := s.mockAccount(r, tpp, kind)
		if e != nil {
			return e
		}
		return s.writeMockAccount(w, r, a)
	}
}

// writeMockAccount answers with the mock account as it now stands.
func (s *Service) writeMockAccount(w http.ResponseWriter, r *http.Request, a *store.Account) *bgerror.Error {
	m, err := s.mockAccountJSON(r, a)
	if err != nil {
		return s.storeError(err, "the account")
	}
	respond.JSON(w, http.StatusOK, m)
	return nil
}

// PutBalances replaces an account's balances: the body is
// {"balances":[...]} in the shape of the account creation bodies.
func (s *Service) PutBalances(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
		a, e := s.mockAccount(r, tpp, kind)
		if e != nil {
			return e
		}
		body, e := respond.Body(r)
		if e != nil {
			return e
		}
		in, errs := mockdata.ParseBalances(body, kind == store.KindCardAccount, s.Now())
		if len(errs) > 0 {
			return respond.FieldErrors(errs)
		}
		for i, b := range in {
			if b.Amount.Currency != a.Currency {
				return bgerror.Format("$.balances["+strconv.Itoa(i)+"].balanceAmount.currency", "the balance must be in the account's currency "+a.Currency)
			}
		}
		now := s.Now()
		balances := mockdata.Balances(in, now)
		if _, _, e := ledger.BookedTarget(balances, "$.balances"); e != nil {
			return e
		}
		err := s.Store.Atomically(r.Context(), func(tx store.Store) error {
			if err := tx.LockAccounts(r.Context(), a.ID); err != nil {
				return err
			}
			return ledger.SetBalances(r.Context(), tx, a, balances, false, now)
		})
		if err != nil {
			return s.storeError(err, "the balances")
		}
		return s.writeMockAccount(w, r, a)
	}
}

// AddTransactions books an array of transactions on a mock account or
// card account and moves its balances by the amounts, so the booked balance
// keeps matching the booked list.
func (s *Service) AddTransactions(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
		a, e := s.mockAccount(r, tpp, kind)
		if e != nil {
			return e
		}
		body, e := respond.Body(r)
		if e != nil {
			return e
		}
		now := s.Now()
		var txs []store.Transaction
		var response func() ([]byte, error)
		if kind == store.KindCardAccount {
			in, errs := mockdata.ParseCardTransactions(body, now)
			if len(errs) > 0 {
				return respond.FieldErrors(errs)
			}
			for i, t := range in {
				if t.MaskedPAN == "" {
					t.MaskedPAN = a.MaskedPAN // "": the card's own
				}
				if t.MaskedPAN != a.MaskedPAN {
					// A transaction of another card on this card account
					// would be served as this card's.
					return bgerror.Format("$["+strconv.Itoa(i)+"].maskedPan", "must be the card account's maskedPan "+a.MaskedPAN+" (or empty, for it)")
				}
				details, _ := json.Marshal(mockdata.CardTransactionDetails(&t))
				txs = append(txs, store.Transaction{Booked: true, Amount: t.TransactionAmount.Minor, Currency: t.TransactionAmount.Currency,
					BookingDate: t.BookingDate, ValueDate: t.TransactionDate, Details: details})
			}
			response = func() ([]byte, error) { return mockdata.CardTransactionsResponse(a.MaskedPAN, in) }
		} else {
			in, errs := mockdata.ParseAccountTransactions(body, now)
			if len(errs) > 0 {
				return respond.FieldErrors(errs)
			}
			for i, t := range in {
				if t.DebtorAccount != nil && t.DebtorAccount.IBAN != a.IBAN && t.DebtorAccount.BBAN != a.BBAN {
					return bgerror.Format("$["+strconv.Itoa(i)+"].debtorAccount", "another account is the debtor: only transactions of this account can be booked on it")
				}
				details, _ := json.Marshal(mockdata.AccountTransactionDetails(&t))
				txs = append(txs, store.Transaction{Booked: true, Amount: t.Amount.Minor, Currency: t.Amount.Currency,
					BookingDate: t.BookingDate, ValueDate: t.ValueDate, Details: details})
			}
		}
		for i, t := range txs {
			if t.Currency != a.Currency {
				return bgerror.Format("$["+strconv.Itoa(i)+"]", "the amount must be in the account's currency "+a.Currency)
			}
		}
		err := s.Store.Atomically(r.Context(), func(tx store.Store) error {
			if err := tx.LockAccounts(r.Context(), a.ID); err != nil {
				return err
			}
			if err := tx.AddTransactions(r.Context(), a.ID, txs); err != nil {
				return err
			}
			return ledger.Move(r.Context(), tx, a, txs, now)
		})
		if err != nil {
			return s.storeError(err, "the account")
		}
		if response != nil {
			out, err := response()
			if err != nil {
				return bgerror.New(bgerror.CodeServiceUnavailable, "the response could not be built")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(out)
			return nil
		}
		list := make([]resource.Transaction, 0, len(txs))
		for i := range txs {
			list = append(list, resource.TransactionOf(&txs[i], kind))
		}
		respond.JSON(w, http.StatusCreated, map[string]any{"account": resource.Reference(a), "transactions": map[string]any{"booked": list, "pending": []any{}}})
		return nil
	}
}

func agreementJSON(r *http.Request, st Store, a *store.Agreement) map[string]any {
	ctx := r.Context()
	eng := make([]map[string]any, 0, len(a.Engagements))
	for _, e := range a.Engagements {
		item := map[string]any{"roles": e.Roles}
		if c, err := st.GetCustomer(ctx, e.CustomerID); err == nil {
			item["customer"] = c.Number
		}
		if acc, err := st.GetAccount(ctx, e.AccountID); err == nil {
			item["account"] = resource.AccountReference{IBAN: acc.IBAN}
		}
		eng = append(eng, item)
	}
	m := map[string]any{"agreementId": a.ID, "name": a.Name, "engagements": eng,
		"_links": map[string]respond.Link{"self": respond.Get(respond.Under(r, "/v1/sandbox/agreements/"+a.ID))}}
	if c, err := st.GetCustomer(ctx, a.OwnerID); err == nil {
		m["owner"] = c.Number
	}
	return m
}

func (s *Service) ListAgreements(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	ctx := r.Context()
	cs, err := s.Store.ListCustomers(ctx, ownerOf(tpp.TPP))
	if err != nil {
		return s.storeError(err, "the customers")
	}
	seen := map[string]bool{}
	out := []map[string]any{}
	for _, c := range cs {
		ags, err := s.Store.ListAgreementsOf(ctx, c.ID)
		if err != nil {
			return s.storeError(err, "the agreements")
		}
		for i := range ags {
			if !seen[ags[i].ID] {
				seen[ags[i].ID] = true
				out = append(out, agreementJSON(r, s.Store, &ags[i]))
			}
		}
	}
	respond.JSON(w, http.StatusOK, map[string]any{"agreements": out})
	return nil
}

// GetAgreement answers one agreement of the caller's sandbox (the one
// its _links.self names); another sandbox's is unknown.
func (s *Service) GetAgreement(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	ctx := r.Context()
	a, err := s.Store.GetAgreement(ctx, r.PathValue("agreementId"))
	if errors.Is(err, store.ErrNotFound) {
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such agreement in your sandbox")
	} else if err != nil {
		return s.storeError(err, "the agreement")
	}
	owner, err := s.Store.GetCustomer(ctx, a.OwnerID)
	if err != nil || owner.Owner != ownerOf(tpp.TPP) {
		return bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such agreement in your sandbox")
	}
	respond.JSON(w, http.StatusOK, agreementJSON(r, s.Store, a))
	return nil
}

func (s *Service) CreateAgreement(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	body, e := respond.Body(r)
	if e != nil {
		return e
	}
	in, errs := mockdata.ParseAgreement(body, s.Now())
	if len(errs) > 0 {
		return respond.FieldErrors(errs)
	}
	ctx := r.Context()
	owner, e := s.customerByNumber(ctx, tpp, in.Owner, "$.owner")
	if e != nil {
		return e
	}
	if owner.Type != store.CustomerCorporate {
		return bgerror.Format("$.owner", "the owner must be a corporate customer")
	}
	owned, err := s.Store.ListCustomerAccounts(ctx, owner.ID)
	if err != nil {
		return s.storeError(err, "the accounts")
	}
	ag := &store.Agreement{OwnerID: owner.ID, Name: in.Name}
	for i, en := range in.Engagements {
		path := "$.engagements[" + strconv.Itoa(i) + "]"
		psu, e := s.customerByNumber(ctx, tpp, en.Customer, path+".customer")
		if e != nil {
			return e
		}
		var accountID string
		for _, a := range owned {
			if (en.Account.IBAN != "" && a.IBAN == en.Account.IBAN) || (en.Account.BBAN != "" && a.BBAN == en.Account.BBAN) {
				accountID = a.ID
			}
		}
		if accountID == "" {
			return bgerror.Format(path+".account", "must name one of the owner's accounts")
		}
		ag.Engagements = append(ag.Engagements, store.Engagement{CustomerID: psu.ID, AccountID: accountID, Roles: en.Roles})
	}
	if err := s.Store.CreateAgreement(ctx, ag); err != nil {
		return s.storeError(err, "the agreement")
	}
	w.Header().Set("Location", respond.Under(r, "/v1/sandbox/agreements"))
	respond.JSON(w, http.StatusCreated, agreementJSON(r, s.Store, ag))
	return nil
}
