package payments

import "github.com/obgw/obgw/backend/strictjson"

// Bulk is a validated bulk payment body (Berlin Group v1.3
// bulkPaymentInitiation): payments from one debtor account, in one
// currency (so that their sum is an amount).
type Bulk struct {
	// BatchBookingPreferred asks for one booking of the sum instead of one
	// per payment; false when not sent.
	BatchBookingPreferred bool
	// DebtorAccount is the account every payment is made from.
	DebtorAccount AccountReference
	// RequestedExecutionDate is YYYY-MM-DD or "".
	RequestedExecutionDate string
	// Payments are 1 to MaxBulkPayments payments, each with Product,
	// DebtorAccount and RequestedExecutionDate copied from the bulk.
	Payments []Payment
}

var bulkFields = fieldSet([]string{"batchBookingPreferred", "debtorAccount", "requestedExecutionDate", "payments"}, nil)

var bulkPaymentFields = fieldSet(
	commonPaymentFields,
	map[string]string{
		"debtorAccount":          "is given once for the whole bulk, as $.debtorAccount; remove it here",
		"requestedExecutionDate": "is given once for the whole bulk, as $.requestedExecutionDate; remove it here",
	},
)

// ParseBulk parses and validates the body of POST
// /v1/bulk-payments/{product}, as ParsePayment does a payment; the
// payments are checked at $.payments[i].
func ParseBulk(product string, body []byte, today string) (Bulk, []FieldError) {
	if errs := checkProduct(product); errs != nil {
		return Bulk{}, errs
	}
	c, errs := decodeBody(body, MaxBulkBodyBytes, today)
	if errs != nil {
		return Bulk{}, errs
	}
	var b Bulk
	if o, ok := c.rootObject(bulkFields); ok {
		b.BatchBookingPreferred, _ = o.Bool("batchBookingPreferred", false, false)
		b.DebtorAccount, _ = o.accountReference("debtorAccount", true, product, debtorRole)
		b.RequestedExecutionDate, _ = o.executionDate("requestedExecutionDate", false)
		if ps, p := o.List("payments", true, "payments", 1, MaxBulkPayments); p == strictjson.Valid {
			first := "" // the currency of the first valid amount
			b.Payments = make([]Payment, ps.Len())
			for i := range ps.Len() {
				po, ok := c.element(ps, i, bulkPaymentFields)
				if !ok {
					continue
				}
				// The payment's members get paths under its own, built once.
				po.Object = po.Anchored()
				b.Payments[i] = po.payment(product, bulkPayment, b.DebtorAccount)
				b.Payments[i].RequestedExecutionDate = b.RequestedExecutionDate
				if cur := b.Payments[i].InstructedAmount.Currency; first == "" {
					first = cur
				} else if cur != "" && cur != first {
					c.Add(po.Path()+".instructedAmount.currency", "must be the currency of the bulk's first payment: a bulk is in one currency")
				}
			}
		}
	}
	errs = c.Errors()
	c.release()
	if errs != nil {
		return Bulk{}, errs
	}
	return b, nil
}
