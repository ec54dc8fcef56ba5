package payments

import (
	"strconv"

	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/strictjson"
)

// Money is an amount in minor units of its currency (øre for NOK).
type Money struct {
	// Currency is the ISO 4217 code.
	Currency string `json:"Currency"`
	// Minor is the amount in minor units.
	Minor int64 `json:"Minor"`
}

// maxWholeDigits bounds the whole currency units of an instructed amount:
// at most 999 999 999 999 and the currency's decimals. Berlin Group allows
// 14 digits; no payment of this bank comes near 12.
const maxWholeDigits = 12

const (
	ruleAmountType   = `must be a JSON string with the amount in currency units, such as "123.45" (Berlin Group amounts are strings, not numbers)`
	ruleAmountFormat = `must be a decimal amount with '.' as decimal separator, such as "123.45" (no sign, spaces, group separators or exponent)`
	ruleAmountZero   = "must be greater than zero"
	maxAmountBytes   = 24
)

var amountFields = fieldSet([]string{"currency", "amount"}, nil)

// productCurrency is the currency a product requires, or "" for any.
func productCurrency(product string) string {
	switch product {
	case ProductDomestic, ProductInstant:
		return "NOK"
	case ProductSEPA:
		return "EUR"
	}
	return ""
}

// instructedAmount checks the instructedAmount object: a currency of the
// allowed list (the product's own for all but cross-border) and a
// positive amount string with at most the currency's decimals.
func (o object) instructedAmount(product string) (Money, bool) {
	a, p := o.child("instructedAmount", true, amountFields)
	if p != strictjson.Valid {
		return Money{}, false
	}
	cur, ok := a.Code("currency", true, codelists.ValidCurrency, codelists.RuleCurrency)
	if ok && cur != "" {
		if want := productCurrency(product); want != "" && cur != want {
			a.Report("currency", "must be "+want+" for "+product)
			ok = false
		}
	}
	n, present := a.Lookup("amount")
	switch {
	case !present:
		a.Missing("amount", n)
		return Money{}, false
	case n.Kind != strictjson.KindString:
		a.Report("amount", ruleAmountType)
		return Money{}, false
	case !ok || cur == "":
		// The amount's decimals depend on the currency; once that is
		// fixed the amount is checked.
		return Money{}, false
	}
	minor, rule := parseAmount(n.Text, cur)
	if rule != "" {
		a.Report("amount", rule)
		return Money{}, false
	}
	return Money{Currency: cur, Minor: minor}, true
}

// parseAmount reads a positive decimal amount string of cur into minor
// units, or returns the rule it breaks. Leading zeros are allowed, as the
// Berlin Group pattern allows them.
func parseAmount(s, cur string) (int64, string) {
	if s == "" || len(s) > maxAmountBytes {
		return 0, ruleAmountFormat
	}
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	whole, frac, hasDot := cutByte(digits, '.')
	if !allDigits(whole) || hasDot && !allDigits(frac) {
		return 0, ruleAmountFormat
	}
	exp := money.Exponent(cur)
	if len(frac) > exp {
		if exp == 0 {
			return 0, "must be a whole number: " + cur + " has no decimals"
		}
		return 0, "has more than " + strconv.Itoa(exp) + " decimals, the most " + cur + " has"
	}
	if neg {
		return 0, ruleAmountZero
	}
	for len(whole) > 1 && whole[0] == '0' {
		whole = whole[1:]
	}
	if len(whole) > maxWholeDigits {
		return 0, "must be at most " + money.Format(maxMinor(cur), cur)
	}
	minor, err := money.Parse(digits, cur)
	if err != nil {
		return 0, ruleAmountFormat // unreachable: the checks above are stricter
	}
	if minor == 0 {
		return 0, ruleAmountZero
	}
	return minor, ""
}

// maxMinor is the largest instructed amount of cur in minor units.
func maxMinor(cur string) int64 {
	m := int64(1)
	for i := 0; i < maxWholeDigits+money.Exponent(cur); i++ {
		m *= 10
	}
	return m - 1
}

// cutByte is strings.Cut for one byte.
func cutByte(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
