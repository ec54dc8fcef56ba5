package payments

import "github.com/obgw/obgw/backend/strictjson"

// Payment is a validated payment initiation body (Berlin Group v1.3
// paymentInitiation), or one payment of a bulk.
type Payment struct {
	// Product is the payment product of the request path.
	Product string `json:"Product"`
	// InstructedAmount is positive, in the product's currency.
	InstructedAmount Money `json:"InstructedAmount"`
	// DebtorAccount is an account at this bank (Norwegian); in a bulk, the
	// bulk's debtor account.
	DebtorAccount AccountReference `json:"DebtorAccount"`
	// CreditorAccount differs from DebtorAccount.
	CreditorAccount AccountReference `json:"CreditorAccount"`
	// CreditorName is 1 to 70 characters.
	CreditorName string `json:"CreditorName"`
	// CreditorAddress is optional, but required for cross-border payments.
	CreditorAddress *Address `json:"CreditorAddress"`
	// CreditorAgent is the BIC of the creditor's bank, or "".
	CreditorAgent string `json:"CreditorAgent"`
	// RequestedExecutionDate is YYYY-MM-DD or ""; in a bulk, the bulk's.
	RequestedExecutionDate string `json:"RequestedExecutionDate"`
	// RemittanceInformationUnstructured is at most 140 characters.
	RemittanceInformationUnstructured string `json:"RemittanceInformationUnstructured"`
	// RemittanceInformationStructured is the older single structured
	// reference, or nil.
	RemittanceInformationStructured *StructuredRemittance `json:"RemittanceInformationStructured"`
	// RemittanceInformationStructuredArray is the newer form, nil or 1 to
	// MaxStructuredRemittances entries. At most one of the three
	// remittance fields is set.
	RemittanceInformationStructuredArray []StructuredRemittance `json:"RemittanceInformationStructuredArray"`
	// EndToEndIdentification is at most 35 printable ASCII characters, or
	// "".
	EndToEndIdentification string `json:"EndToEndIdentification"`
}

// paymentKind is where a payment object occurs.
type paymentKind uint8

const (
	singlePayment paymentKind = iota
	periodicPayment
	bulkPayment
)

// Field names shared by every kind of payment object.
var commonPaymentFields = []string{
	"instructedAmount", "creditorAccount", "creditorName", "creditorAddress", "creditorAgent",
	fieldUnstructured, fieldStructured, fieldStructuredArray, "endToEndIdentification",
}

var paymentFields = fieldSet(append([]string{"debtorAccount", "requestedExecutionDate"}, commonPaymentFields...), nil)

const (
	ruleEndToEnd = "must be 1 to 35 printable ASCII characters (letters, digits, spaces and punctuation)"
	ruleDiffer   = "must differ from debtorAccount: a payment moves money between two accounts"
)

// ParsePayment parses and validates the body of POST
// /v1/payments/{product} (and of the instant product's fee-information)
// for payment product, with today the bank's date (Today(time.Now())). It
// returns the payment, or every rule broken (at most MaxFieldErrors) and
// a zero Payment. product must be one KnownProduct accepts: the caller
// answers others with 404 PRODUCT_UNKNOWN before parsing; here they get
// one FieldError at "$".
func ParsePayment(product string, body []byte, today string) (Payment, []FieldError) {
	if errs := checkProduct(product); errs != nil {
		return Payment{}, errs
	}
	c, errs := decodeBody(body, MaxBodyBytes, today)
	if errs != nil {
		return Payment{}, errs
	}
	var p Payment
	if o, ok := c.rootObject(paymentFields); ok {
		p = o.payment(product, singlePayment, AccountReference{})
	}
	errs = c.Errors()
	c.release()
	if errs != nil {
		return Payment{}, errs
	}
	return p, nil
}

// checkProduct refuses a product KnownProduct does not accept.
func checkProduct(product string) []FieldError {
	if KnownProduct(product) {
		return nil
	}
	return []FieldError{{Path: "$", Rule: "payment product is not known; use " + ProductDomestic + ", " + ProductInstant +
		", " + ProductSEPA + " or " + ProductCrossBorder}}
}

// payment checks the fields of a payment object of kind. A bulk payment
// takes its debtor account from the bulk (bulkDebtor, when valid); the
// other kinds have their own. The fields are checked in body-independent
// order, and a rule relating two fields only when both passed their own.
func (o object) payment(product string, kind paymentKind, bulkDebtor AccountReference) Payment {
	var p Payment
	p.Product = product
	p.InstructedAmount, _ = o.instructedAmount(product)
	var pd, pc strictjson.Presence
	if kind == bulkPayment {
		p.DebtorAccount, pd = bulkDebtor, strictjson.Valid
		if bulkDebtor == (AccountReference{}) {
			pd = strictjson.Invalid // the bulk's debtorAccount was refused
		}
	} else {
		p.DebtorAccount, pd = o.accountReference("debtorAccount", true, product, debtorRole)
	}
	p.CreditorAccount, pc = o.accountReference("creditorAccount", true, product, creditorRole)
	p.CreditorName, _ = o.Text("creditorName", true, maxNameRunes)
	var pa strictjson.Presence
	p.CreditorAddress, pa = o.address("creditorAddress", false)
	var agentOK bool
	p.CreditorAgent, agentOK = o.Code("creditorAgent", false, validBIC, ruleBIC)
	if kind == singlePayment {
		p.RequestedExecutionDate, _ = o.executionDate("requestedExecutionDate", false)
	}
	r, _ := o.remittance(product)
	p.RemittanceInformationUnstructured = r.unstructured
	p.RemittanceInformationStructured = r.structured
	p.RemittanceInformationStructuredArray = r.array
	p.EndToEndIdentification, _ = o.Code("endToEndIdentification", false, validEndToEnd, ruleEndToEnd)

	if pd == strictjson.Valid && pc == strictjson.Valid && accountKey(p.DebtorAccount) == accountKey(p.CreditorAccount) {
		o.Report("creditorAccount", ruleDiffer)
	}
	if product == ProductCrossBorder {
		if pa == strictjson.Absent {
			o.Report("creditorAddress", "is required for "+ProductCrossBorder)
		}
		if pc == strictjson.Valid && p.CreditorAccount.IBAN == "" && agentOK && p.CreditorAgent == "" {
			o.Report("creditorAgent", "is required when creditorAccount has a bban instead of an iban: send the BIC of the creditor's bank")
		}
	}
	return p
}

// validEndToEnd reports whether s is 1 to 35 printable ASCII characters:
// the identification travels through clearing systems whose character
// sets are smaller than UTF-8.
func validEndToEnd(s string) bool {
	return len(s) <= maxIDRunes && printableASCII(s)
}
