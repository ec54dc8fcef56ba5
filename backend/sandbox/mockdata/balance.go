package mockdata

import (
	"slices"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/strictjson"
)

// Balance is one balance of a sandbox account or card account.
type Balance struct {
	// Type is the Berlin Group balance type, in its spelling: expected,
	// authorised, closingBooked...
	Type string
	// Amount is the balance.
	Amount Money
	// ReferenceDate is a civil date (YYYY-MM-DD), or empty.
	ReferenceDate string
	// LastChangeDateTime is when the balance last changed (UTC), or zero.
	LastChangeDateTime time.Time
	// LastCommittedTransaction is the id of the last transaction counted
	// (at most 35 characters), or empty.
	LastCommittedTransaction string
	// CreditLimitIncluded tells whether the credit limit is included.
	CreditLimitIncluded bool
}

var balanceFields = &strictjson.FieldSet{Names: []string{
	"balanceType", "balanceAmount", "referenceDate", "lastChangeDateTime",
	"lastCommittedTransaction", "creditLimitIncluded",
}}

// cardBalanceTypes are the balance types of a card account (contract
// section 10: EXPECTED or AUTHORISED).
var cardBalanceTypes = []string{"expected", "authorised"}

// accountBalanceTypes are those of an account: the card account's and the
// Berlin Group v1.3 balance types.
var accountBalanceTypes = []string{
	"expected", "authorised", "closingBooked", "openingBooked", "interimAvailable",
	"interimBooked", "forwardAvailable", "nonInvoiced",
}

// balances checks the optional balances array of an account or card
// account, whose types must be in types (matched in any case, returned in
// the Berlin Group spelling), each at most once.
func (o object) balances(types []string) []Balance {
	items, p := o.List("balances", false, "balances", 0, MaxBalances)
	if p != strictjson.Valid {
		return nil
	}
	out := make([]Balance, 0, items.Len())
	rule := "must be one of " + strings.Join(types, ", ") + " (in any case)"
	for i := range items.Len() {
		b, ok := o.c.element(items, i, balanceFields)
		if !ok {
			continue
		}
		var bal Balance
		t, okType := b.Code("balanceType", true, func(s string) bool { return canonical(s, types) != "" }, rule)
		bal.Type = canonical(t, types)
		bal.Amount, _ = b.amount("balanceAmount", true)
		d, _ := b.date("referenceDate", false)
		bal.ReferenceDate = d.civil
		bal.LastChangeDateTime, _ = b.dateTime("lastChangeDateTime")
		bal.LastCommittedTransaction, _ = b.Text("lastCommittedTransaction", false, maxIDRunes)
		bal.CreditLimitIncluded, _ = b.Bool("creditLimitIncluded", false, false)
		if !okType {
			continue
		}
		// The same balance sent twice (contract section 10's card
		// accounts send EXPECTED twice) is one balance; the same type
		// with other values is a contradiction.
		same := slices.IndexFunc(out, func(x Balance) bool { return x.Type == bal.Type })
		switch {
		case same < 0:
			out = append(out, bal)
		case !sameBalance(out[same], bal):
			b.Report("balanceType", "appears in more than one balance with different values; send each balance type once")
		}
	}
	return out
}

// sameBalance reports whether a and b say the same.
func sameBalance(a, b Balance) bool {
	return a.Type == b.Type && a.Amount == b.Amount && a.ReferenceDate == b.ReferenceDate &&
		a.LastChangeDateTime.Equal(b.LastChangeDateTime) && a.LastCommittedTransaction == b.LastCommittedTransaction &&
		a.CreditLimitIncluded == b.CreditLimitIncluded
}

// canonical returns the entry of list equal to s in any case, or "".
func canonical(s string, list []string) string {
	for _, x := range list {
		if strings.EqualFold(s, x) {
			return x
		}
	}
	return ""
}

// balancesFields are the members of a balance-update body.
var balancesFields = &strictjson.FieldSet{Names: []string{"balances"}}

// ParseBalances parses the body of the sandbox balance-update operations:
// {"balances":[...]} with the balance shape of the account bodies (card
// accounts: expected or authorised only). At least one balance.
func ParseBalances(body []byte, card bool, now time.Time) ([]Balance, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return nil, errs
	}
	types := accountBalanceTypes
	if card {
		types = cardBalanceTypes
	}
	var out []Balance
	if o, ok := c.rootObject(balancesFields); ok {
		if !o.Has("balances") {
			o.Report("balances", "is required: send the new balances")
		} else {
			out = o.balances(types)
		}
	}
	if len(c.Errors()) > 0 {
		return nil, c.Errors()
	}
	return out, nil
}
