package mockdata

import (
	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/strictjson"
)

// currency returns the currency field name, checked against the
// description's ISO 4217 list.
func (o object) currency(name string, required bool) (string, bool) {
	return o.Code(name, required, codelists.ValidCurrency, codelists.RuleCurrency)
}

// Money is an amount in minor units of its currency (øre for NOK): the
// sandbox inputs send whole currency units, converted on parsing.
type Money struct {
	// Currency is the ISO 4217 code.
	Currency string
	// Minor is the amount in minor units, signed.
	Minor int64
}

// amountFields are the members of an amount object.
var amountFields = &strictjson.FieldSet{Names: []string{"currency", "amount"}}

// amount returns the amount object field name ({currency, amount} with
// amount in whole units).
func (o object) amount(name string, required bool) (Money, strictjson.Presence) {
	a, p := o.child(name, required, amountFields)
	if p != strictjson.Valid {
		return Money{}, p
	}
	cur, okc := a.currency("currency", true)
	whole, oka := a.int32Field("amount", true)
	if !okc || !oka || cur == "" {
		return Money{}, strictjson.Invalid
	}
	m, ok := a.money(cur, whole, "amount")
	if !ok {
		return Money{}, strictjson.Invalid
	}
	return m, strictjson.Valid
}

// money converts whole units of cur to Money.
func (o object) money(cur string, whole int64, name string) (Money, bool) {
	minor, err := money.FromWhole(whole, cur)
	if err != nil { // cannot happen for int32 and exponents up to 4
		o.Report(name, "is too large for "+cur)
		return Money{}, false
	}
	return Money{Currency: cur, Minor: minor}, true
}
