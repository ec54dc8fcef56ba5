package backend

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/obgw/obgw/backend/money"
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

// accountJSON is the account details of a list or single read.
func accountJSON(a *store.Account, balances []store.Balance) map[string]any {
	base := collection(a.Kind) + "/" + a.ID
	m := map[string]any{
		"resourceId": a.ID,
		"currency":   a.Currency,
		"name":       a.Name,
		"product":    a.Product,
		"status":     orDefault(a.Status, "enabled"),
		"_links": map[string]link{
			"balances":     get(base + "/balances"),
			"transactions": get(base + "/transactions"),
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

func (s *Server) listAccounts(kind store.AccountKind) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		withBalance := r.URL.Query().Get("withBalance") == "true"
		accounts, err := s.cfg.Store.ListAccounts(r.Context(), kind, a.consent.AccountIDs)
		if err != nil {
			return storeError(err, "the accounts")
		}
		list := make([]map[string]any, 0, len(accounts))
		for i := range accounts {
			var bs []store.Balance
			if withBalance {
				if bs, err = s.cfg.Store.ListBalances(r.Context(), accounts[i].ID); err != nil {
					return storeError(err, "the balances")
				}
			}
			list = append(list, accountJSON(&accounts[i], bs))
		}
		key := "accounts"
		if kind == store.KindCardAccount {
			key = "cardAccounts"
		}
		writeJSON(w, http.StatusOK, map[string]any{key: list})
		return nil
	}
}

// account returns the consented account or card account named in the path.
func (s *Server) account(r *http.Request, kind store.AccountKind, a *access) (*store.Account, *bgerror.Error) {
	acc, err := s.cfg.Store.GetAccount(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && acc.Kind != kind) {
		return nil, bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such account")
	} else if err != nil {
		return nil, storeError(err, "the account")
	}
	if !a.allows(acc.ID) {
		return nil, bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "the account is not in the PSU's consent for this TPP")
	}
	return acc, nil
}

func (s *Server) getAccount(kind store.AccountKind) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		acc, e := s.account(r, kind, a)
		if e != nil {
			return e
		}
		var bs []store.Balance
		if r.URL.Query().Get("withBalance") == "true" {
			var err error
			if bs, err = s.cfg.Store.ListBalances(r.Context(), acc.ID); err != nil {
				return storeError(err, "the balances")
			}
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		writeJSON(w, http.StatusOK, map[string]any{key: accountJSON(acc, bs)})
		return nil
	}
}

func reference(acc *store.Account) accountReference {
	if acc.Kind == store.KindCardAccount {
		return accountReference{MaskedPAN: acc.MaskedPAN}
	}
	return accountReference{IBAN: acc.IBAN, BBAN: acc.BBAN, Currency: acc.Currency}
}

func (s *Server) getBalances(kind store.AccountKind) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		acc, e := s.account(r, kind, a)
		if e != nil {
			return e
		}
		bs, err := s.cfg.Store.ListBalances(r.Context(), acc.ID)
		if err != nil {
			return storeError(err, "the balances")
		}
		key := "account"
		if kind == store.KindCardAccount {
			key = "cardAccount"
		}
		writeJSON(w, http.StatusOK, map[string]any{key: reference(acc), "balances": balancesJSON(bs)})
		return nil
	}
}

// transactionQuery is the parsed query of a transaction listing.
type transactionQuery struct {
	filter store.TransactionFilter
	status string
}

// parseTransactionQuery reads bookingStatus (booked by default; pending,
// both, all), dateFrom, dateTo, limit (default 200) and offset.
func parseTransactionQuery(r *http.Request) (transactionQuery, *bgerror.Error) {
	q := r.URL.Query()
	tq := transactionQuery{status: orDefault(q.Get("bookingStatus"), "booked")}
	switch tq.status {
	case "booked":
		tq.filter.Booked = true
	case "pending":
		tq.filter.Pending = true
	case "both", "all":
		tq.filter.Booked, tq.filter.Pending = true, true
	default:
		return tq, bgerror.Format("bookingStatus", "bookingStatus must be booked, pending, both or all")
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"dateFrom", &tq.filter.DateFrom}, {"dateTo", &tq.filter.DateTo}} {
		if v := q.Get(p.name); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				return tq, bgerror.Format(p.name, p.name+" must be an ISO 8601 date such as 2026-11-21")
			}
			*p.dst = v
		}
	}
	tq.filter.Limit = DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return tq, bgerror.Format("limit", "limit must be a whole number from 1 to 10000")
		}
		tq.filter.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return tq, bgerror.Format("offset", "offset must be a whole number of 0 or more")
		}
		tq.filter.Offset = n
	}
	return tq, nil
}

// transactionJSON merges a transaction's stored details with its ids,
// dates and amount.
func transactionJSON(t *store.Transaction, kind store.AccountKind) map[string]any {
	m := map[string]any{}
	if len(t.Details) > 0 {
		_ = json.Unmarshal(t.Details, &m)
	}
	if kind == store.KindCardAccount {
		m["cardTransactionId"] = t.ID
	} else {
		m["transactionId"] = t.ID
		m["valueDate"] = t.ValueDate
	}
	if t.BookingDate != "" {
		m["bookingDate"] = t.BookingDate
	}
	m["transactionAmount"] = amountOf(t.Amount, t.Currency)
	return m
}

func (s *Server) listTransactions(kind store.AccountKind) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		acc, e := s.account(r, kind, a)
		if e != nil {
			return e
		}
		tq, e := parseTransactionQuery(r)
		if e != nil {
			return e
		}
		if !a.psuPresent {
			// Without the PSU, history is limited to 90 days.
			floor := s.cfg.Now().Add(-HistoryWithoutPSU).UTC().Format(time.DateOnly)
			if tq.filter.DateFrom < floor {
				tq.filter.DateFrom = floor
			}
		}
		txs, total, err := s.cfg.Store.ListTransactions(r.Context(), acc.ID, tq.filter)
		if err != nil {
			return storeError(err, "the transactions")
		}
		booked, pending := []map[string]any{}, []map[string]any{}
		for i := range txs {
			j := transactionJSON(&txs[i], kind)
			if txs[i].Booked {
				j["_links"] = map[string]link{"transactionDetails": get(collection(kind) + "/" + acc.ID + "/transactions/" + txs[i].ID)}
				booked = append(booked, j)
			} else {
				pending = append(pending, j)
			}
		}
		links := map[string]link{"account": get(collection(kind) + "/" + acc.ID)}
		if tq.filter.Booked && tq.filter.Offset+tq.filter.Limit < total {
			q := r.URL.Query()
			q.Set("offset", strconv.Itoa(tq.filter.Offset+tq.filter.Limit))
			q.Set("limit", strconv.Itoa(tq.filter.Limit))
			links["next"] = get(collection(kind) + "/" + acc.ID + "/transactions?" + q.Encode())
		}
		list := map[string]any{"booked": booked, "pending": pending, "_links": links}
		if kind == store.KindCardAccount {
			writeJSON(w, http.StatusOK, map[string]any{"cardAccount": reference(acc), "cardTransactions": list})
		} else {
			writeJSON(w, http.StatusOK, map[string]any{"account": reference(acc), "transactions": list})
		}
		return nil
	}
}

func (s *Server) getTransaction(kind store.AccountKind) func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		a, e := s.resolve(r, c)
		if e != nil {
			return e
		}
		acc, e := s.account(r, kind, a)
		if e != nil {
			return e
		}
		t, err := s.cfg.Store.GetTransaction(r.Context(), acc.ID, r.PathValue("transactionId"))
		if err != nil {
			return storeError(err, "the transaction")
		}
		if !a.psuPresent && t.BookingDate < s.cfg.Now().Add(-HistoryWithoutPSU).UTC().Format(time.DateOnly) {
			return bgerror.NewStatus(http.StatusForbidden, bgerror.CodeResourceUnknown, "transactions older than 90 days need the PSU present")
		}
		writeJSON(w, http.StatusOK, map[string]any{"transactionsDetails": transactionJSON(t, kind)})
		return nil
	}
}

// listAgreements answers the corporate agreements the PSU takes part in,
// each with its PSU-Corporate-ID for this TPP.
func (s *Server) listAgreements(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
	a, e := s.resolveFor(r, c, false)
	if e != nil {
		return e
	}
	ags, err := s.cfg.Store.ListAgreementsOf(r.Context(), a.customer.ID)
	if err != nil {
		return storeError(err, "the agreements")
	}
	out := make([]map[string]any, 0, len(ags))
	for _, ag := range ags {
		cid, err := s.cfg.Store.CorporateID(r.Context(), c.TPP, ag.ID)
		if err != nil {
			return storeError(err, "the agreement")
		}
		out = append(out, map[string]any{"psuCorporateId": cid, "name": ag.Name})
	}
	writeJSON(w, http.StatusOK, map[string]any{"agreements": out})
	return nil
}
