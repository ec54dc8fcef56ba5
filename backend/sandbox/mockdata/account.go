package mockdata

import (
	"slices"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/strictjson"
)

// Account is a validated sandbox account body (contract section 10).
type Account struct {
	// CustomerNumber is the owner's customer number.
	CustomerNumber string
	// Name is the accountName (at most 70 characters).
	Name string
	// BBAN and IBAN are both set: the one not sent is derived from the
	// other (an account of this bank is Norwegian).
	BBAN, IBAN string
	// Currency is the ISO 4217 code.
	Currency string
	// Product is the product name (at most 70 characters), or empty.
	Product string
	// CashAccountType is the ISO 20022 code, CACC when not sent.
	CashAccountType string
	// CreditLine is the credit line in the account's currency, at least 0
	// (zero when not sent).
	CreditLine Money
	// Balances are the account's initial balances.
	Balances []Balance
}

var accountFields = &strictjson.FieldSet{Names: []string{
	"customerNumber", "accountName", "bban", "iban", "currency", "product",
	"cashAccountType", "creditLine", "balances",
}}

// cashAccountTypes is ISO 20022 ExternalCashAccountType1Code.
var cashAccountTypes = []string{
	"CACC", "CARD", "CASH", "CHAR", "CISH", "COMM", "CPAC", "LLSV", "LOAN", "MGLD", "MOMA",
	"NFCA", "NREX", "ODFT", "ONDP", "OTHR", "SACC", "SLRY", "SVGS", "TAXE", "TRAN", "TRAS", "VACC",
}

const ruleNorwegianIBAN = "must be a Norwegian IBAN (NO, two check digits and the 11-digit account number), " +
	"upper case without spaces, with valid check digits (such as NO9386011117947)"

// ParseAccount parses and validates the body of "create sandbox account":
// bban or iban (or both, naming the same account), currency, and balances
// of the Berlin Group types; creditLine in whole units.
func ParseAccount(body []byte, now time.Time) (Account, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return Account{}, errs
	}
	var a Account
	if o, ok := c.rootObject(accountFields); ok {
		a.CustomerNumber, _ = o.Code("customerNumber", true, validCustomerNumber, ruleCustomerNumber)
		a.Name, _ = o.Text("accountName", true, maxNameRunes)
		o.ownAccountNumbers(&a)
		a.Currency, _ = o.currency("currency", true)
		a.Product, _ = o.Text("product", false, maxNameRunes)
		a.CashAccountType, _ = o.Code("cashAccountType", false, func(s string) bool { return slices.Contains(cashAccountTypes, s) },
			"must be an ISO 20022 cash account type: one of "+strings.Join(cashAccountTypes, ", "))
		if a.CashAccountType == "" {
			a.CashAccountType = "CACC"
		}
		if whole, ok := o.int32Field("creditLine", false); ok {
			if whole < 0 {
				o.Report("creditLine", "must not be negative")
			} else if a.Currency != "" {
				a.CreditLine, _ = o.money(a.Currency, whole, "creditLine")
			}
		}
		if a.CreditLine.Currency == "" {
			a.CreditLine.Currency = a.Currency
		}
		a.Balances = o.balances(accountBalanceTypes)
	}
	if len(c.Errors()) > 0 {
		return Account{}, c.Errors()
	}
	return a, nil
}

// ownAccountNumbers checks bban and iban of an account of this bank.
func (o object) ownAccountNumbers(a *Account) {
	bban, okB := o.Code("bban", false, mockBBAN, ruleBBAN)
	iban, okI := o.Code("iban", false, func(s string) bool {
		return strings.HasPrefix(s, "NO") && bankaccount.ValidIBANCheckDigits(s)
	}, ruleNorwegianIBAN)
	switch {
	case !okB || !okI:
		return
	case bban == "" && iban == "":
		o.Report("bban", "is required unless iban is given: send the account number as bban, iban or both")
		return
	case bban != "" && iban != "" && !sameAccount(iban, bban):
		o.Report("iban", "names another account than bban: a Norwegian IBAN is NO, two check digits and the BBAN")
		return
	case iban == "":
		iban = bankaccount.IBAN("NO", bban)
	case bban == "":
		bban = iban[4:]
	}
	a.BBAN, a.IBAN = bban, iban
}
