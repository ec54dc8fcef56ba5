package sandbox

import (
	"net/http"

	"github.com/obgw/obgw/backend/ledger"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/sandbox/mockdata"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// The description's sandbox "creating and updating customers, accounts,
// card accounts": PUT takes the creation body and replaces what may
// change. What names the resource or carries its history stays and must
// be sent as it is: the customer number; the owner, the account numbers
// (bban, iban, maskedPan) and the currency of an account, whose
// transactions are in it. Balances sent replace the balances; none sent
// keep them.

// UpdateCustomer is PUT /v1/sandbox/customers/{customerId}.
func (s *Service) UpdateCustomer(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
	c, e := s.mockCustomer(r, tpp)
	if e != nil {
		return e
	}
	body, e := respond.Body(r)
	if e != nil {
		return e
	}
	in, errs := mockdata.ParseCustomer(body, s.Now())
	if len(errs) > 0 {
		return respond.FieldErrors(errs)
	}
	if in.Number != c.Number {
		return bgerror.Format("$.customerNumber", "is the customer's and cannot change: send "+c.Number+", or create another customer")
	}
	c.Name, c.Type = in.Name, store.CustomerType(in.Type)
	if err := s.Store.UpdateCustomer(r.Context(), c); err != nil {
		return s.storeError(err, "the customer")
	}
	respond.JSON(w, http.StatusOK, customerJSON(r, c))
	return nil
}

// UpdateAccount is PUT /v1/sandbox/accounts/{mockId} and
// /v1/sandbox/card-accounts/{mockId}.
func (s *Service) UpdateAccount(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, tpp *tppcontext.Context) *bgerror.Error {
		a, e := s.mockAccount(r, tpp, kind)
		if e != nil {
			return e
		}
		body, e := respond.Body(r)
		if e != nil {
			return e
		}
		in, owner, balances, e := mockdata.AccountOf(kind, body, s.Now())
		if e != nil {
			return e
		}
		switch {
		case in.MaskedPAN != a.MaskedPAN:
			return bgerror.Format("$.maskedPan", "is the card account's and cannot change: send "+a.MaskedPAN)
		case in.IBAN != a.IBAN:
			return bgerror.Format("$.iban", "names another account: the account's numbers cannot change (bban "+a.BBAN+")")
		case in.Currency != a.Currency:
			return bgerror.Format("$.currency", "cannot change: the account's transactions are in "+a.Currency)
		}
		a.Name, a.Product, a.CashAccountType, a.CreditLimit = in.Name, in.Product, in.CashAccountType, in.CreditLimit
		if kind == store.KindCardAccount {
			a.Status, a.Extra = in.Status, in.Extra
		}
		c, e := s.customerByNumber(r.Context(), tpp, owner, "$.customerNumber")
		if e != nil {
			return e
		}
		if c.ID != a.CustomerID {
			return bgerror.Format("$.customerNumber", "names another customer than the account's owner; the owner cannot change")
		}
		err := s.Store.Atomically(r.Context(), func(tx store.Store) error {
			if err := tx.LockAccounts(r.Context(), a.ID); err != nil {
				return err
			}
			if err := tx.UpdateAccount(r.Context(), a); err != nil {
				return err
			}
			if len(balances) == 0 {
				return nil
			}
			return ledger.SetBalances(r.Context(), tx, a, balances, false, s.Now())
		})
		if err != nil {
			return s.storeError(err, "the account")
		}
		return s.writeMockAccount(w, r, a)
	}
}
