package ais

import (
	"errors"
	"net/http"

	"github.com/obgw/obgw/backend/resource"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

func (s *Service) ListAccounts(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		// Without the PSU, balances come only from the limited balances
		// endpoint: withBalance would be a way around the 4-per-day limit.
		withBalance := r.URL.Query().Get("withBalance") == "true" && a.psuPresent
		accounts, err := s.Store.ListAccounts(r.Context(), kind, a.consent.AccountIDs)
		if err != nil {
			return s.storeError(err, "the accounts")
		}
		list := make([]map[string]any, 0, len(accounts))
		for i := range accounts {
			var bs []store.Balance
			if withBalance {
				if bs, err = s.Store.ListBalances(r.Context(), accounts[i].ID); err != nil {
					return s.storeError(err, "the balances")
				}
			}
			list = append(list, resource.Account(r, &accounts[i], bs))
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
func (s *Service) consentedAccount(r *http.Request, c *tppcontext.Context, kind store.AccountKind) (*access, *store.Account, *bgerror.Error) {
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
func (s *Service) account(r *http.Request, kind store.AccountKind, a *access) (*store.Account, *bgerror.Error) {
	acc, err := a.account, error(nil)
	if acc == nil || acc.ID != r.PathValue("id") {
		acc, err = s.Store.GetAccount(r.Context(), r.PathValue("id"))
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

func (s *Service) GetAccount(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		var bs []store.Balance
		if r.URL.Query().Get("withBalance") == "true" && a.psuPresent {
			var err error
			if bs, err = s.Store.ListBalances(r.Context(), acc.ID); err != nil {
				return s.storeError(err, "the balances")
			}
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		respond.JSON(w, http.StatusOK, map[string]any{key: resource.Account(r, acc, bs)})
		return nil
	}
}

func (s *Service) GetBalances(kind store.AccountKind) respond.Handler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		_, acc, e := s.consentedAccount(r, c, kind)
		if e != nil {
			return e
		}
		bs, err := s.Store.ListBalances(r.Context(), acc.ID)
		if err != nil {
			return s.storeError(err, "the balances")
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		respond.JSON(w, http.StatusOK, map[string]any{key: resource.Reference(acc), "balances": resource.Balances(bs)})
		return nil
	}
}

// ListAgreements answers the corporate agreements the PSU takes part in,
// each with its PSU-Corporate-ID for this TPP.
func (s *Service) ListAgreements(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	a, e := s.resolveFor(r, c, false, "")
	if e != nil {
		return e
	}
	ags, err := s.Store.ListAgreementsOf(r.Context(), a.customer.ID)
	if err != nil {
		return s.storeError(err, "the agreements")
	}
	out := make([]map[string]any, 0, len(ags))
	for _, ag := range ags {
		cid, err := s.Store.CorporateID(r.Context(), c.TPP, ag.ID)
		if err != nil {
			return s.storeError(err, "the agreement")
		}
		out = append(out, map[string]any{"psuCorporateId": cid, "name": ag.Name})
	}
	respond.JSON(w, http.StatusOK, map[string]any{"agreements": out})
	return nil
}
