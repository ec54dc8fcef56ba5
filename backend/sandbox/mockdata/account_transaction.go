package mockdata

import (
	"time"

	"github.com/obgw/obgw/backend/strictjson"
)

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
	// EntryReference is the bank's own identification of the transaction
	// (Berlin Group's entryReference), at most 35 characters, or empty.
	// An operator import (backend Import) requires it: it is what makes a
	// transaction imported twice one transaction.
	EntryReference string
}

var accountTransactionFields = &strictjson.FieldSet{Names: []string{
	"amount", "currency", "valueDate", "bookingDate", "remittanceInformationUnstructured",
	"creditorId", "creditorName", "creditorAccount", "ultimateCreditor", "debtorName",
	"debtorAccount", "ultimateDebtor", "purposeCode", "bankTransactionCode", "entryReference",
}}

// ParseAccountTransactions parses and validates the body of "POST
// /v1/sandbox/accounts/{mockAccountId}/transactions": an array of 1 to
// MaxAccountTransactions transactions, amount an int32 of whole units,
// bookingDate required, and booking and value dates before now.
func ParseAccountTransactions(body []byte, now time.Time) ([]AccountTransaction, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return nil, errs
	}
	items, ok := c.RootArray("account transactions", 1, MaxAccountTransactions)
	if !ok {
		return nil, c.Errors()
	}
	txs := make([]AccountTransaction, items.Len())
	for i := range items.Len() {
		if c.Full() {
			break
		}
		c.accountTransaction(items, i, &txs[i])
	}
	if len(c.Errors()) > 0 {
		return nil, c.Errors()
	}
	return txs, nil
}

// accountTransaction checks item i into tx.
func (c *checker) accountTransaction(items strictjson.Array, i int, tx *AccountTransaction) {
	o, ok := c.element(items, i, accountTransactionFields)
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
	tx.RemittanceInformationUnstructured, _ = o.Text("remittanceInformationUnstructured", false, maxRemitRunes)
	tx.CreditorID, _ = o.Text("creditorId", false, maxIDRunes)
	tx.CreditorName, _ = o.Text("creditorName", false, maxNameRunes)
	tx.CreditorAccount = o.optionalReference("creditorAccount")
	tx.UltimateCreditor, _ = o.Text("ultimateCreditor", false, maxNameRunes)
	tx.DebtorName, _ = o.Text("debtorName", false, maxNameRunes)
	tx.DebtorAccount = o.optionalReference("debtorAccount")
	tx.UltimateDebtor, _ = o.Text("ultimateDebtor", false, maxNameRunes)
	// The description types purposeCode a string; the tooling sends free
	// text, so it is text rather than an ISO 20022 code.
	tx.PurposeCode, _ = o.Text("purposeCode", false, maxIDRunes)
	tx.BankTransactionCode, _ = o.Text("bankTransactionCode", false, maxIDRunes)
	tx.EntryReference, _ = o.Text("entryReference", false, maxIDRunes)
}

// optionalReference checks the optional account reference field name.
func (o object) optionalReference(name string) *AccountReference {
	r, p := o.child(name, false, accountReferenceFields)
	if p != strictjson.Valid {
		return nil
	}
	ref := r.accountReference()
	return &ref
}
