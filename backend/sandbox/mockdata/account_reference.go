package mockdata

import (
	"strings"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/strictjson"
)

// AccountReference names an account by IBAN and/or BBAN (Berlin Group
// AccountReference, the forms this sandbox serves).
type AccountReference struct {
	// IBAN is an IBAN with valid check digits (any country).
	IBAN string
	// BBAN is a Norwegian account number (MOD11).
	BBAN string
	// Currency is an optional ISO 4217 code.
	Currency string
}

var accountReferenceFields = &strictjson.FieldSet{Names: []string{"iban", "bban", "currency"}}

// accountReference checks an account reference object: iban or bban
// required, both valid, and naming the same account when both are given.
func (o object) accountReference() AccountReference {
	var r AccountReference
	var okI, okB bool
	r.IBAN, okI = o.Code("iban", false, bankaccount.ValidIBANCheckDigits, ruleIBAN)
	r.BBAN, okB = o.Code("bban", false, mockBBAN, ruleBBAN)
	r.Currency, _ = o.currency("currency", false)
	switch {
	case !okI || !okB:
	case r.IBAN == "" && r.BBAN == "":
		o.c.Add(o.Path(), "must hold an iban or a bban")
	case r.IBAN != "" && r.BBAN != "" && !sameAccount(r.IBAN, r.BBAN):
		o.Report("iban", "names another account than bban: a Norwegian IBAN is NO, two check digits and the BBAN")
	}
	return r
}

// sameAccount reports whether a valid IBAN and a valid BBAN name one
// Norwegian account.
func sameAccount(iban, bban string) bool {
	return strings.HasPrefix(iban, "NO") && iban[4:] == bban
}
