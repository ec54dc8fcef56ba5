package mockdata

import "time"

// AccountTransaction is one validated sandbox account transaction
// (contract section 10), booked on the mock account of the request path.
type AccountTransaction struct {
	// Amount is signed: negative for a debit.
	Amount Money
	// BookingDate and ValueDate are civil dates (YYYY-MM-DD); ValueDate is
	// BookingDate when not sent.
	BookingDate, ValueDate string
	// RemittanceInformationUnstructured is at most 140 characters.
	RemittanceInformationUnstructured string
	// CreditorID is at most 35 characters.
	CreditorID string
	// CreditorName, UltimateCreditor, DebtorName and UltimateDebtor are at
	// most 70 characters.
	CreditorName, UltimateCreditor, DebtorName, UltimateDebtor string
	// CreditorAccount and DebtorAccount are nil when not sent. The handler
	// must refuse a DebtorAccount other than the mock account itself (the
	// description: an error is returned when another account is the
	// debtor).
	CreditorAccount, DebtorAccount *AccountReference
	// PurposeCode is an ISO 20022 purpose code (4 upper-case letters), or
	// empty.
	PurposeCode string
	// BankTransactionCode is at most 35 characters (such as PMNT), or empty.
	BankTransactionCode string
}

var accountTransactionFields = []string{
	"amount", "currency", "valueDate", "bookingDate", "remittanceInformationUnstructured",
	"creditorId", "creditorName", "creditorAccount", "ultimateCreditor", "debtorName",
	"debtorAccount", "ultimateDebtor", "purposeCode", "bankTransactionCode",
}

// ParseAccountTransactions parses and validates the body of "POST
// /v1/sandbox/accounts/{mockAccountId}/transactions": an array of 1 to
// MaxAccountTransactions transactions, amount an int32 of whole units,
// bookingDate required, and booking and value dates before now.
func ParseAccountTransactions(body []byte, now time.Time) ([]AccountTransaction, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return nil, errs
	}
	items, ok := c.array(root, "$", "account transactions", 1, MaxAccountTransactions)
	if !ok {
		return nil, c.errs
	}
	txs := make([]AccountTransaction, len(items))
	for i, idx := range items {
		if c.full {
			break
		}
		c.accountTransaction(idx, indexPath("$", i), &txs[i])
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return txs, nil
}

func (c *checker) accountTransaction(idx int32, path string, tx *AccountTransaction) {
	o, ok := c.object(idx, path, accountTransactionFields)
	if !ok {
		return
	}
	whole, okA := o.int32Field("amount", true)
	cur, okC := o.currency("currency", true)
	if okA && okC && cur != "" {
		tx.Amount, _ = o.money(cur, whole, "amount")
	}
	value, _ := o.pastDate("valueDate", false)
	booking, _ := o.pastDate("bookingDate", true)
	tx.BookingDate, tx.ValueDate = booking.civil, value.civil
	if tx.ValueDate == "" {
		tx.ValueDate = tx.BookingDate
	}
	tx.RemittanceInformationUnstructured, _ = o.text("remittanceInformationUnstructured", false, maxRemitRunes)
	tx.CreditorID, _ = o.text("creditorId", false, maxIDRunes)
	tx.CreditorName, _ = o.text("creditorName", false, maxNameRunes)
	tx.CreditorAccount = o.optionalReference("creditorAccount")
	tx.UltimateCreditor, _ = o.text("ultimateCreditor", false, maxNameRunes)
	tx.DebtorName, _ = o.text("debtorName", false, maxNameRunes)
	tx.DebtorAccount = o.optionalReference("debtorAccount")
	tx.UltimateDebtor, _ = o.text("ultimateDebtor", false, maxNameRunes)
	tx.PurposeCode, _ = o.code("purposeCode", false, validPurposeCode, rulePurposeCode)
	tx.BankTransactionCode, _ = o.text("bankTransactionCode", false, maxIDRunes)
}

// optionalReference checks the optional account reference field name.
func (o object) optionalReference(name string) *AccountReference {
	r, p := o.child(name, false, accountReferenceFields)
	if p != valid {
		return nil
	}
	ref := r.accountReference()
	return &ref
}
