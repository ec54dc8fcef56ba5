package resource

import (
	"cmp"
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

// AccountReference names an account: IBAN (and BBAN) with its currency,
// or a card account's masked PAN.
type AccountReference struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
}

// Reference is the reference of acc as the account information service
// names it: the masked PAN of a card account, else IBAN, BBAN and currency.
func Reference(acc *store.Account) AccountReference {
	if acc.Kind == store.KindCardAccount {
		return AccountReference{MaskedPAN: acc.MaskedPAN}
	}
	return AccountReference{IBAN: acc.IBAN, BBAN: acc.BBAN, Currency: acc.Currency}
}

// Collection is the path of the accounts of kind k.
func Collection(k store.AccountKind) string {
	if k == store.KindCardAccount {
		return "/v1/card-accounts"
	}
	return "/v1/accounts"
}

// Balance is one balance as served.
type Balance struct {
	BalanceType        string `json:"balanceType"`
	BalanceAmount      Amount `json:"balanceAmount"`
	ReferenceDate      string `json:"referenceDate,omitempty"`
	LastChangeDateTime string `json:"lastChangeDateTime,omitempty"`
}

// Balances is bs as served.
func Balances(bs []store.Balance) []Balance {
	out := make([]Balance, 0, len(bs))
	for _, b := range bs {
		j := Balance{BalanceType: b.Type, BalanceAmount: AmountOf(b.Amount, b.Currency), ReferenceDate: b.ReferenceDate}
		if !b.LastChange.IsZero() {
			j.LastChangeDateTime = b.LastChange.UTC().Format(time.RFC3339)
		}
		out = append(out, j)
	}
	return out
}

// Account is the account details of a list or single read, its links
// under the request's base path, with balances when they are not nil.
func Account(r *http.Request, a *store.Account, balances []store.Balance) map[string]any {
	base := respond.Under(r, Collection(a.Kind)+"/"+a.ID)
	m := map[string]any{
		"resourceId": a.ID,
		"currency":   a.Currency,
		"name":       a.Name,
		"product":    a.Product,
		"status":     cmp.Or(a.Status, "enabled"),
		"_links": map[string]respond.Link{
			"balances":     respond.Get(base + "/balances"),
			"transactions": respond.Get(base + "/transactions"),
		},
	}
	if a.Kind == store.KindCardAccount {
		m["maskedPan"] = a.MaskedPAN
		m["creditLimit"] = AmountOf(a.CreditLimit, a.Currency)
	} else {
		m["iban"] = a.IBAN
		m["bban"] = a.BBAN
		m["cashAccountType"] = a.CashAccountType
	}
	if balances != nil {
		m["balances"] = Balances(balances)
	}
	return m
}
