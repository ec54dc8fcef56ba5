package mockdata

import "time"

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
	// CardAcceptorID is the merchant's id (at most 35 characters).
	CardAcceptorID string
	// CardAcceptorAddress is the merchant's address.
	CardAcceptorAddress Address
	// MaskedPAN is the masked card number.
	MaskedPAN string
	// TransactionDetails is free text (at most 1000 characters).
	TransactionDetails string
	// Invoiced tells whether the transaction has been invoiced.
	Invoiced bool
	// ProprietaryBankTransactionCode is the bank's own transaction code
	// (at most 35 characters).
	ProprietaryBankTransactionCode string
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

// Address is a card acceptor's address; only Country is required.
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

var cardTransactionFields = []string{
	"cardTransactionId", "terminalId", "bookingDate", "transactionDate", "transactionAmount",
	"originalAmount", "merchantCategoryCode", "currencyExchange", "cardAcceptorId",
	"cardAcceptorAddress", "maskedPan", "transactionDetails", "invoiced", "proprietaryBankTransactionCode",
}

var currencyExchangeFields = []string{
	"sourceCurrency", "targetCurrency", "exchangeRate", "unitCurrency", "quotationDate",
	"markupFee", "markupFeePercentage",
}

var addressFields = []string{"street", "buildingNumber", "postalCode", "city", "country"}

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
	items, ok := c.array(root, "$", "card transactions", 1, MaxCardTransactions)
	if !ok {
		return nil, c.errs
	}
	txs := make([]CardTransaction, len(items))
	for i, idx := range items {
		if c.full {
			break
		}
		c.cardTransaction(idx, indexPath("$", i), &txs[i])
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return txs, nil
}

// cardTransaction checks one item into tx.
func (c *checker) cardTransaction(idx int32, path string, tx *CardTransaction) {
	o, ok := c.object(idx, path, cardTransactionFields)
	if !ok {
		return
	}
	tx.CardTransactionID, _ = o.text("cardTransactionId", true, maxIDRunes)
	tx.TerminalID, _ = o.text("terminalId", true, maxIDRunes)
	booking, okB := o.pastDate("bookingDate", true)
	value, okV := o.pastDate("transactionDate", true)
	if okB && okV && booking.civil > value.civil {
		c.add(o.at("bookingDate"), "must not be after transactionDate (the value date of a card transaction)")
	}
	tx.BookingDate, tx.TransactionDate = booking.civil, value.civil
	tx.TransactionAmount, _ = o.amount("transactionAmount", true)
	tx.OriginalAmount, _ = o.amount("originalAmount", true)
	tx.MerchantCategoryCode, _ = o.code("merchantCategoryCode", true, validMerchantCategoryCode, ruleMerchantCategoryCode)
	if x, p := o.child("currencyExchange", false, currencyExchangeFields); p == valid {
		tx.CurrencyExchange = x.currencyExchange()
	}
	tx.CardAcceptorID, _ = o.text("cardAcceptorId", true, maxIDRunes)
	if a, p := o.child("cardAcceptorAddress", true, addressFields); p == valid {
		tx.CardAcceptorAddress = a.address()
	}
	tx.MaskedPAN, _ = o.code("maskedPan", true, validMaskedPAN, ruleMaskedPAN)
	tx.TransactionDetails, _ = o.text("transactionDetails", true, maxDetailsRunes)
	tx.Invoiced, _ = o.boolField("invoiced", true, true)
	tx.ProprietaryBankTransactionCode, _ = o.text("proprietaryBankTransactionCode", true, maxIDRunes)
}

// currencyExchange checks a currencyExchange object: every field required.
func (o object) currencyExchange() *CurrencyExchange {
	var x CurrencyExchange
	x.SourceCurrency, _ = o.currency("sourceCurrency", true)
	x.TargetCurrency, _ = o.currency("targetCurrency", true)
	x.ExchangeRate, _ = o.code("exchangeRate", true, validPositiveDecimal, ruleExchangeRate)
	x.UnitCurrency, _ = o.currency("unitCurrency", true)
	q, _ := o.date("quotationDate", true)
	x.QuotationDate = q.civil
	x.MarkupFee, _ = o.amount("markupFee", true)
	x.MarkupFeePercentage, _ = o.code("markupFeePercentage", true, validDecimal, rulePercentage)
	return &x
}

// address checks a cardAcceptorAddress object.
func (o object) address() Address {
	var a Address
	a.Street, _ = o.text("street", false, maxStreetRunes)
	a.BuildingNumber, _ = o.text("buildingNumber", false, maxShortRunes)
	a.PostalCode, _ = o.text("postalCode", false, maxShortRunes)
	a.City, _ = o.text("city", false, maxCityRunes)
	a.Country, _ = o.code("country", true, validCountry, ruleCountry)
	return a
}
