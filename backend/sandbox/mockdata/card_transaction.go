package mockdata

import (
	"time"

	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/strictjson"
)

// CardTransaction is one validated sandbox card transaction (the request
// body item of "Create sandbox card account transactions"), amounts in
// minor units.
type CardTransaction struct {
	// CardTransactionID is the TPP's id of the transaction (at most 35
	// characters).
	CardTransactionID string
	// TerminalID is the card terminal's id (at most 35 characters).
	TerminalID string
	// BookingDate is the civil booking date (YYYY-MM-DD).
	BookingDate string
	// TransactionDate is the civil transaction date (YYYY-MM-DD): the value
	// date of a card transaction.
	TransactionDate string
	// TransactionAmount is the amount in the card account's terms.
	TransactionAmount Money
	// OriginalAmount is the amount in the currency of the purchase.
	OriginalAmount Money
	// MerchantCategoryCode is the ISO 18245 code (4 digits).
	MerchantCategoryCode string
	// CurrencyExchange is set when the purchase was in another currency.
	CurrencyExchange *CurrencyExchange
	// Markup is the exchange's markup when it was sent at the top level
	// without currencyExchange (the vendor's card script does): either
	// member may be empty.
	Markup *Markup
	// CardAcceptorID is the merchant's id (at most 35 characters).
	CardAcceptorID string
	// CardAcceptorAddress is the merchant's address.
	CardAcceptorAddress Address
	// MaskedPAN is the masked card number; empty when the TPP sent "", which
	// stands for the card account's own.
	MaskedPAN string
	// TransactionDetails is free text (at most 1000 characters).
	TransactionDetails string
	// Invoiced tells whether the transaction has been invoiced.
	Invoiced bool
	// ProprietaryBankTransactionCode is the bank's own transaction code
	// (at most 35 characters).
	ProprietaryBankTransactionCode string
}

// Markup is an exchange's markup sent without the exchange.
type Markup struct {
	// Fee is the fee charged, when sent.
	Fee *Money
	// Percentage is a decimal of at least 0 as sent ("1.75"), or empty.
	Percentage string
}

// CurrencyExchange is the exchange of a card transaction made in another
// currency.
type CurrencyExchange struct {
	// SourceCurrency, TargetCurrency and UnitCurrency are ISO 4217 codes.
	SourceCurrency, TargetCurrency, UnitCurrency string
	// ExchangeRate is a positive decimal as sent ("10.4567").
	ExchangeRate string
	// QuotationDate is the civil date of the quotation (YYYY-MM-DD).
	QuotationDate string
	// MarkupFee is the fee charged for the exchange.
	MarkupFee Money
	// MarkupFeePercentage is a decimal of at least 0 as sent ("1.75").
	MarkupFeePercentage string
}

// Address is a card acceptor's address. The description requires only
// Country; the dialect's tooling leaves it out, so it is checked when sent.
type Address struct {
	// Street is at most 70 characters.
	Street string
	// BuildingNumber and PostalCode are at most 16 characters.
	BuildingNumber, PostalCode string
	// City is at most 35 characters.
	City string
	// Country is an ISO 3166-1 alpha-2 code.
	Country string
}

var cardTransactionFields = &strictjson.FieldSet{Names: []string{
	"cardTransactionId", "terminalId", "bookingDate", "transactionDate", "transactionAmount",
	"originalAmount", "merchantCategoryCode", "currencyExchange", "cardAcceptorId",
	"cardAcceptorAddress", "maskedPan", "transactionDetails", "invoiced", "proprietaryBankTransactionCode",
	// The description does not show where the last seven fields nest; the
	// tooling sends the markup fields at the top level.
	"markupFee", "markupFeePercentage",
}}

var currencyExchangeFields = &strictjson.FieldSet{Names: []string{
	"sourceCurrency", "targetCurrency", "exchangeRate", "unitCurrency", "quotationDate",
	"markupFee", "markupFeePercentage",
}}

var addressFields = &strictjson.FieldSet{Names: []string{"street", "buildingNumber", "postalCode", "city", "country"}}

// ParseCardTransactions parses and validates the body of "Create sandbox
// card account transactions": a JSON array of 1 to MaxCardTransactions
// card transactions. now is the current time, for the rule that booking
// and transaction (value) dates lie before it. It returns either the
// transactions, in body order, or every rule broken (at most
// MaxFieldErrors), so that a TPP developer can fix them all at once.
func ParseCardTransactions(body []byte, now time.Time) ([]CardTransaction, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return nil, errs
	}
	items, ok := c.RootArray("card transactions", 1, MaxCardTransactions)
	if !ok {
		return nil, c.Errors()
	}
	txs := make([]CardTransaction, items.Len())
	for i := range items.Len() {
		if c.Full() {
			break
		}
		c.cardTransaction(items, i, &txs[i])
	}
	if len(c.Errors()) > 0 {
		return nil, c.Errors()
	}
	return txs, nil
}

// cardTransaction checks item i into tx.
func (c *checker) cardTransaction(items strictjson.Array, i int, tx *CardTransaction) {
	o, ok := c.element(items, i, cardTransactionFields)
	if !ok {
		return
	}
	tx.CardTransactionID, _ = o.Text("cardTransactionId", true, maxIDRunes)
	tx.TerminalID = o.anyText("terminalId", maxIDRunes)
	booking, okB := o.pastDate("bookingDate", true)
	value, okV := o.pastDate("transactionDate", true)
	if okB && okV && booking.civil > value.civil {
		o.Report("bookingDate", "must not be after transactionDate (the value date of a card transaction)")
	}
	tx.BookingDate, tx.TransactionDate = booking.civil, value.civil
	tx.TransactionAmount, _ = o.amount("transactionAmount", true)
	tx.OriginalAmount, _ = o.amount("originalAmount", true)
	// The description types it a string; the tooling sends codes other
	// than ISO 18245's four digits.
	tx.MerchantCategoryCode = o.anyText("merchantCategoryCode", maxIDRunes)
	if x, p := o.child("currencyExchange", false, currencyExchangeFields); p == strictjson.Valid {
		tx.CurrencyExchange = x.currencyExchange(o)
	} else if p == strictjson.Absent && (o.Has("markupFee") || o.Has("markupFeePercentage")) {
		// The markup without the exchange, as the vendor's card script
		// sends it: the description marks currencyExchange optional and
		// does not nest the markup (issue 29, 11).
		var m Markup
		if o.Has("markupFee") {
			if fee, p := o.amount("markupFee", true); p == strictjson.Valid {
				m.Fee = &fee
			}
		}
		if o.Has("markupFeePercentage") {
			m.Percentage, _ = o.Code("markupFeePercentage", true, validDecimal, rulePercentage)
		}
		tx.Markup = &m
	}
	tx.CardAcceptorID = o.anyText("cardAcceptorId", maxIDRunes)
	if a, p := o.child("cardAcceptorAddress", true, addressFields); p == strictjson.Valid {
		tx.CardAcceptorAddress = a.address()
	}
	if n, ok := o.Lookup("maskedPan"); ok && n.Kind == strictjson.KindString && n.Text == "" {
		// The vendor's script sends "": the card account's own.
		tx.MaskedPAN = ""
	} else {
		tx.MaskedPAN, _ = o.Code("maskedPan", true, validMaskedPAN, ruleMaskedPAN)
	}
	tx.TransactionDetails = o.anyText("transactionDetails", maxDetailsRunes)
	if n, ok := o.Lookup("invoiced"); ok && n.Kind == strictjson.KindString && n.Text == "" {
		// The tooling sends "" when it does not know: not invoiced.
		tx.Invoiced = false
	} else {
		tx.Invoiced, _ = o.Bool("invoiced", true, true)
	}
	tx.ProprietaryBankTransactionCode = o.anyText("proprietaryBankTransactionCode", maxIDRunes)
}

// anyText returns a member the description marks "string, required": it
// must be sent, and may be empty (the tooling sends "" for what it does
// not know).
func (o object) anyText(name string, maxRunes int) string {
	if _, p := o.Field(name, true, strictjson.KindString); p != strictjson.Valid {
		return ""
	}
	s, _ := o.Text(name, false, maxRunes)
	return s
}

func (o object) currencyExchange(tx object) *CurrencyExchange {
	var x CurrencyExchange
	x.SourceCurrency, _ = o.currency("sourceCurrency", true)
	x.TargetCurrency, _ = o.currency("targetCurrency", true)
	x.ExchangeRate, _ = o.Code("exchangeRate", true, validPositiveDecimal, ruleExchangeRate)
	x.UnitCurrency, _ = o.currency("unitCurrency", true)
	q, _ := o.date("quotationDate", true)
	x.QuotationDate = q.civil
	// The markup fields are required, here or at the top level of the
	// transaction (tx), once.
	from := func(name string) object {
		inside, outside := o.Has(name), tx.Has(name)
		switch {
		case inside && outside:
			tx.Report(name, "is also in currencyExchange: send it once, in either place")
		case outside:
			return tx
		}
		return o
	}
	x.MarkupFee, _ = from("markupFee").amount("markupFee", true)
	x.MarkupFeePercentage, _ = from("markupFeePercentage").Code("markupFeePercentage", true, validDecimal, rulePercentage)
	return &x
}

// address checks a cardAcceptorAddress object.
func (o object) address() Address {
	var a Address
	a.Street, _ = o.Text("street", false, maxStreetRunes)
	a.BuildingNumber, _ = o.Text("buildingNumber", false, maxShortRunes)
	a.PostalCode, _ = o.Text("postalCode", false, maxShortRunes)
	a.City, _ = o.Text("city", false, maxCityRunes)
	// Required by the description, left out by the tooling: checked when
	// sent.
	a.Country, _ = o.Code("country", false, codelists.ValidCountry, codelists.RuleCountry)
	return a
}
