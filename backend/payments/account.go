package payments

import (
	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/strictjson"
)

// AccountReference names an account by IBAN or BBAN (the Berlin Group
// AccountReference forms this bank takes for payments).
type AccountReference struct {
	// IBAN is an IBAN in electronic form with valid check digits.
	IBAN string `json:"IBAN"`
	// BBAN is a Norwegian account number (11 digits, MOD11), or for the
	// creditor of a cross-border payment the foreign account number.
	BBAN string `json:"BBAN"`
	// Currency is an optional ISO 4217 code.
	Currency string `json:"Currency"`
}

// accountRole says which side of a payment an account reference is on.
type accountRole uint8

const (
	debtorRole accountRole = iota
	creditorRole
)

const (
	ruleIBAN        = "must be an IBAN in electronic form (upper case, no spaces) with valid check digits (such as NO9386011117947)"
	ruleBBAN        = "must be an 11-digit Norwegian account number with a valid MOD11 check digit, without spaces or dots (such as 86011117947)"
	ruleForeignBBAN = "must be the creditor's account number: 1 to 30 letters and digits, without spaces"
	ruleSameAccount = "names another account than bban: send one of them, or a Norwegian IBAN (NO, two check digits, the bban) with its own bban"
)

var accountFields = fieldSet([]string{"iban", "bban", "currency"}, nil)

// accountReference checks the account reference object name for role in
// a payment of product (see the package documentation for the rules).
func (o object) accountReference(name string, required bool, product string, role accountRole) (AccountReference, strictjson.Presence) {
	a, p := o.child(name, required, accountFields)
	if p != strictjson.Valid {
		return AccountReference{}, p
	}
	foreignBBAN := role == creditorRole && product == ProductCrossBorder
	validBBAN, bbanRule := bankaccount.ValidBBAN, ruleBBAN
	if foreignBBAN {
		validBBAN, bbanRule = validForeignBBAN, ruleForeignBBAN
	}
	var r AccountReference
	var ok [3]bool
	r.IBAN, ok[0] = a.Code("iban", false, bankaccount.ValidIBAN, ruleIBAN)
	r.BBAN, ok[1] = a.Code("bban", false, validBBAN, bbanRule)
	r.Currency, ok[2] = a.Code("currency", false, codelists.ValidCurrency, codelists.RuleCurrency)
	if ok != [3]bool{true, true, true} {
		return AccountReference{}, strictjson.Invalid
	}
	norwegianIBAN := len(r.IBAN) == 15 && r.IBAN[:2] == "NO"
	switch {
	case r.IBAN == "" && r.BBAN == "":
		if product == ProductSEPA {
			a.Report("iban", "is required: "+ProductSEPA+" identifies accounts by IBAN")
		} else {
			a.c.Add(a.Path(), "must hold an iban or a bban")
		}
	case r.IBAN != "" && r.BBAN != "" && !(norwegianIBAN && r.IBAN[4:] == r.BBAN):
		a.Report("iban", ruleSameAccount)
	case product == ProductSEPA && r.IBAN == "":
		a.Report("bban", "is not accepted for "+ProductSEPA+": send the account as iban")
	case r.IBAN != "" && !norwegianIBAN && (role == debtorRole || domestic(product)):
		if role == debtorRole {
			a.Report("iban", "must be a Norwegian IBAN (starting NO): the debtor account is an account at this bank")
		} else {
			a.Report("iban", "must be a Norwegian IBAN (starting NO) for "+product)
		}
	default:
		return r, strictjson.Valid
	}
	return AccountReference{}, strictjson.Invalid
}

// accountKey returns a value equal for two valid references to the same
// account: the BBAN of a Norwegian account however it was given, the IBAN
// of another, and a marked foreign BBAN.
func accountKey(r AccountReference) string {
	switch {
	case len(r.IBAN) == 15 && r.IBAN[:2] == "NO":
		return r.IBAN[4:]
	case r.IBAN != "":
		return r.IBAN
	case bankaccount.ValidBBAN(r.BBAN):
		return r.BBAN
	}
	return "foreign:" + r.BBAN
}

// validForeignBBAN reports whether s has the Berlin Group BBAN form:
// 1 to 30 ASCII letters and digits.
func validForeignBBAN(s string) bool {
	if len(s) > 30 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return s != ""
}

const ruleBIC = "must be a BIC of 8 or 11 characters: 4 letters, a country code, 2 letters or digits and an optional 3-character branch (such as DNBANOKKXXX)"

// validBIC reports whether s is a BIC (ISO 9362) in upper case: a 4-letter
// institution code, an ISO 3166 country code of the allowed list, a
// 2-character location code and an optional 3-character branch code.
func validBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	return upperAlpha(s[:4]) && codelists.ValidCountry(s[4:6]) && upperAlnum(s[6:8]) && (len(s) == 8 || upperAlnum(s[8:]))
}
