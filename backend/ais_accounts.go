package backend

import (
	"errors"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// amount is a Berlin Group amount: currency and a decimal string with the
// currency's decimals (the amount-as-string shape; the gateway rewrites it
// for TPPs that have not opted in).
type amount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

func amountOf(minor int64, currency string) amount {
	return amount{Currency: currency, Amount: money.Format(minor, currency)}
}

type balanceJSON struct {
	BalanceType        string `json:"balanceType"`
	BalanceAmount      amount `json:"balanceAmount"`
	ReferenceDate      string `json:"referenceDate,omitempty"`
	LastChangeDateTime string `json:"lastChangeDateTime,omitempty"`
}

func balancesJSON(bs []store.Balance) []balanceJSON {
	out := make([]balanceJSON, 0, len(bs))
	for _, b := range bs {
		j := balanceJSON{BalanceType: b.Type, BalanceAmount: amountOf(b.Amount, b.Currency), ReferenceDate: b.ReferenceDate}
		if !b.LastChange.IsZero() {
			j.LastChangeDateTime = b.LastChange.UTC().Format(time.RFC3339)
		}
		out = append(out, j)
	}
	return out
}

// accountJSON is the account details of a list or single read, its links
// under the request's base path.
func accountJSON(r *http.Request, a *store.Account, balances []store.Balance) map[string]any {
	base := respond.Under(r, collection(a.Kind)+"/"+a.ID)
	m := map[string]any{
		"resourceId": a.ID,
		"currency":   a.Currency,
		"name":       a.Name,
		"product":    a.Product,
		"status":     orDefault(a.Status, "enabled"),
		"_links": map[string]respond.Link{
			"balances":     respond.Get(base + "/balances"),
			"transactions": respond.Get(base + "/transactions"),
		},
	}
	if a.Kind == store.KindCardAccount {
		m["maskedPan"] = a.MaskedPAN
		m["creditLimit"] = amountOf(a.CreditLimit, a.Currency)
	} else {
		m["iban"] = a.IBAN
		m["bban"] = a.BBAN
		m["cashAccountType"] = a.CashAccountType
	}
	if balances != nil {
		m["balances"] = balancesJSON(balances)
	}
	return m
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Server) listAccounts(kind store.AccountKind) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		// Without the PSU, balances come only from the limited balances
		// endpoint: withBalance would be a way around the 4-per-day limit.
		withBalance := r.URL.Query().Get("withBalance") == "true" && a.psuPresent
		accounts, err := s.cfg.Store.ListAccounts(r.Context(), kind, a.consent.AccountIDs)
		if err != nil {
			return s.storeError(err, "the accounts")
		}
		list := make([]map[string]any, 0, len(accounts))
		for i := range accounts {
			var bs []store.Balance
			if withBalance {
				if bs, err = s.cfg.Store.ListBalances(r.Context(), accounts[i].ID); err != nil {
					return s.storeError(err, "the balances")
				}
			}
			list = append(list, accountJSON(r, &accounts[i], bs))
		}
		key := "accounts"
		if kind == store.KindCardAccount {
			key = "cardAccounts"
		}
		respond.JSON(w, http.StatusOK, map[string]any{key: list})
		return nil
	}
}

// consentedAccount resolves the PSU's access and the consented account of
// the path: the common start of every single-account read.
func (s *Server) consentedAccount(r *http.Request, c *tppcontext.Context, kind store.AccountKind) (*access, *store.Account, *bgerror.Error) {
	a, e := s.resolveFor(r, c, true, r.PathValue("id"))
	if e != nil {
		return nil, nil, e
	}
	acc, e := s.account(r, kind, a)
	if e != nil {
		return nil, nil, e
	}
	return a, acc, nil
}

// account returns the consented account or card account named in the path.
func (s *Server) account(r *http.Request, kind store.AccountKind, a *access) (*store.Account, *bgerror.Error) {
	acc, err := a.account, error(nil)
	if acc == nil || acc.ID != r.PathValue("id") {
		acc, err = s.cfg.Store.GetAccount(r.Context(), r.PathValue("id"))
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && acc.Kind != kind) {
		return nil, bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such account")
	} else if err != nil {
		return nil, s.storeError(err, "the account")
	}
	if !a.allows(acc.ID) {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the account is not in the PSU's consent for this TPP")
	}
	return acc, nil
}

func (s *Server) getAccount(kind store.AccountKind) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		var bs []store.Balance
		if r.URL.Query().Get("withBalance") == "true" && a.psuPresent {
			var err error
			if bs, err = s.cfg.Store.ListBalances(r.Context(), acc.ID); err != nil {
				return s.storeError(err, "the balances")
			}
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		respond.JSON(w, http.StatusOK, map[string]any{key: accountJSON(r, acc, bs)})
		return nil
	}
}

func reference(acc *store.Account) accountReference {
	if acc.Kind == store.KindCardAccount {
		return accountReference{MaskedPAN: acc.MaskedPAN}
	}
	return accountReference{IBAN: acc.IBAN, BBAN: acc.BBAN, Currency: acc.Currency}
}

func (s *Server) getBalances(kind store.AccountKind) handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		_, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		bs, err := s.cfg.Store.ListBalances(r.Context(), acc.ID)
		if err != nil {
			return s.storeError(err, "the balances")
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		respond.JSON(w, http.StatusOK, map[string]any{key: reference(acc), "balances": balancesJSON(bs)})
		return nil
	}
}

// listAgreements answers the corporate agreements the PSU takes part in,
// each with its PSU-Corporate-ID for this TPP.
func (s *Server) listAgreements(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	a, e := s.resolveFor(r, c, false, "")
	if e != nil {
		return e
	}
	ags, err := s.cfg.Store.ListAgreementsOf(r.Context(), a.customer.ID)
	if err != nil {
		return s.storeError(err, "the agreements")
	}
	out := make([]map[string]any, 0, len(ags))
	for _, ag := range ags {
		cid, err := s.cfg.Store.CorporateID(r.Context(), c.TPP, ag.ID)
		if err != nil {
			return s.storeError(err, "the agreement")
		}
		out = append(out, map[string]any{"psuCorporateId": cid, "name": ag.Name})
	}
	respond.JSON(w, http.StatusOK, map[string]any{"agreements": out})
	return nil
}
