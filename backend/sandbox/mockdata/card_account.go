package mockdata

import (
	"strings"
	"time"

	"github.com/obgw/obgw/backend/strictjson"
)

// CardAccount is a validated sandbox card account body (contract
// section 10).
type CardAccount struct {
	// CustomerNumber is the owner's customer number.
	CustomerNumber string
	// MaskedPAN is the masked card number.
	MaskedPAN string
	// Currency is the ISO 4217 code.
	Currency string
	// CreditLimit is in the card account's currency, at least 0 (zero when
	// not sent).
	CreditLimit Money
	// Balances are of type expected or authorised.
	Balances []Balance
	// CardID, CardIDVNo and AccountNumber are at most 35 characters, or
	// empty.
	CardID, CardIDVNo, AccountNumber string
	// Expiry is the card's expiry as a civil date (YYYY-MM-DD), or empty.
	Expiry string
	// Name and Product are at most 70 characters, or empty.
	Name, Product string
	// Status is enabled, blocked or deleted; enabled when not sent.
	Status string
}

var cardAccountFields = &strictjson.FieldSet{Names: []string{
	"customerNumber", "maskedPan", "currency", "creditLimit", "balances", "cardId",
	"cardIdVNo", "accountNumber", "expiry", "name", "product", "status",
}}

// cardAccountStatuses are the Berlin Group account statuses.
var cardAccountStatuses = []string{"enabled", "blocked", "deleted"}

// ParseCardAccount parses and validates the body of "POST
// /v1/sandbox/card-accounts": balance types EXPECTED or AUTHORISED (any
// case), amounts in whole units, status enabled, blocked or deleted (any
// case).
func ParseCardAccount(body []byte, now time.Time) (CardAccount, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return CardAccount{}, errs
	}
	var a CardAccount
	if o, ok := c.rootObject(cardAccountFields); ok {
		a.CustomerNumber, _ = o.Code("customerNumber", true, validCustomerNumber, ruleCustomerNumber)
		a.MaskedPAN, _ = o.Code("maskedPan", true, validMaskedPAN, ruleMaskedPAN)
		a.Currency, _ = o.currency("currency", true)
		if m, p := o.amount("creditLimit", false); p == strictjson.Valid {
			switch {
			case m.Minor < 0:
				c.Add(o.At("creditLimit")+".amount", "must not be negative")
			case a.Currency != "" && m.Currency != a.Currency:
				c.Add(o.At("creditLimit")+".currency", "must be the card account's currency "+a.Currency)
			default:
				a.CreditLimit = m
			}
		}
		if a.CreditLimit.Currency == "" {
			a.CreditLimit.Currency = a.Currency
		}
		a.Balances = o.balances(cardBalanceTypes)
		a.CardID, _ = o.Text("cardId", false, maxIDRunes)
		a.CardIDVNo, _ = o.Text("cardIdVNo", false, maxIDRunes)
		a.AccountNumber, _ = o.Text("accountNumber", false, maxIDRunes)
		exp, _ := o.date("expiry", false)
		a.Expiry = exp.civil
		a.Name, _ = o.Text("name", false, maxNameRunes)
		a.Product, _ = o.Text("product", false, maxNameRunes)
		a.Status, _ = o.Code("status", false, func(s string) bool { return canonical(s, cardAccountStatuses) != "" },
			"must be one of "+strings.Join(cardAccountStatuses, ", ")+" (in any case)")
		a.Status = canonical(a.Status, cardAccountStatuses)
		if a.Status == "" {
			a.Status = "enabled"
		}
	}
	if len(c.Errors()) > 0 {
		return CardAccount{}, c.Errors()
	}
	return a, nil
}
