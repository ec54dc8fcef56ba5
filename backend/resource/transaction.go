package resource

import (
	"bytes"
	"encoding/json"

	"github.com/obgw/obgw/backend/money"
	"github.com/obgw/obgw/backend/store"
)

// Transaction is one transaction as served: the fields obgw owns, then
// the stored details (remittance information, counterparties, card fields)
// spliced in without decoding them.
type Transaction struct {
	TransactionID     string
	CardTransactionID string
	BookingDate       string
	ValueDate         string
	// Amount (minor units) and Currency are the transactionAmount.
	Amount   int64
	Currency string
	// DetailsBase, when set (a booked transaction in a listing), is the
	// link to the transactions of its account, which its details link
	// continues with its id; one string shared by the page.
	DetailsBase string
	details     json.RawMessage
}

// reservedKeys are the members Transaction writes itself; details that
// carry one of them go the slow way, so no key is ever sent twice.
var reservedKeys = [][]byte{[]byte(`"transactionId"`), []byte(`"cardTransactionId"`), []byte(`"bookingDate"`),
	[]byte(`"valueDate"`), []byte(`"transactionAmount"`), []byte(`"_links"`)}

// MarshalJSON writes the owned fields and the details' members.
func (t Transaction) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(nil), nil
}

// AppendJSON appends t as MarshalJSON writes it: transactionId or
// cardTransactionId, bookingDate, valueDate (each when set),
// transactionAmount, _links (when DetailsBase is set), then the members of
// the details. The page of a listing is written with it into one buffer,
// one transaction after the other.
func (t Transaction) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	sep := false
	field := func(name, v string) {
		if v == "" {
			return
		}
		if sep {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSONString(b, v)
		sep = true
	}
	field("transactionId", t.TransactionID)
	field("cardTransactionId", t.CardTransactionID)
	field("bookingDate", t.BookingDate)
	field("valueDate", t.ValueDate)
	if sep {
		b = append(b, ',')
	}
	b = append(b, `"transactionAmount":{"currency":`...)
	b = appendJSONString(b, t.Currency)
	b = append(b, `,"amount":"`...)
	b = money.AppendFormat(b, t.Amount, t.Currency) // digits, '-' and '.'
	b = append(b, `"}`...)
	if t.DetailsBase != "" {
		b = append(b, `,"_links":{"transactionDetails":{"href":`...)
		id := t.TransactionID + t.CardTransactionID // one of them is set
		if plainJSON(t.DetailsBase) && plainJSON(id) {
			b = append(b, '"')
			b = append(b, t.DetailsBase...)
			b = append(b, id...)
			b = append(b, '"')
		} else {
			b = appendJSONString(b, t.DetailsBase+id)
		}
		b = append(b, `,"verbs":["GET"]}}`...)
	}
	d := bytes.TrimSpace(t.details)
	if len(d) < 2 || d[0] != '{' || bytes.Equal(d, []byte("{}")) {
		return append(b, '}')
	}
	for _, k := range reservedKeys {
		if bytes.Contains(d, k) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(d, &m); err != nil {
				return append(b, '}')
			}
			for _, k := range reservedKeys {
				delete(m, string(k[1:len(k)-1]))
			}
			var err error
			if d, err = json.Marshal(m); err != nil || len(d) <= 2 {
				return append(b, '}')
			}
			break
		}
	}
	b = append(b, ',')
	return append(b, d[1:]...)
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it: as it is when it holds nothing to escape (printable ASCII
// other than '"', '\\', '<', '>' and '&', which encoding/json escapes),
// else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: printable ASCII other than '"', '\\', '<', '>' and '&'.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// TransactionOf is t, of an account of kind, as served.
func TransactionOf(t *store.Transaction, kind store.AccountKind) Transaction {
	o := Transaction{BookingDate: t.BookingDate, Amount: t.Amount, Currency: t.Currency, details: t.Details}
	if kind == store.KindCardAccount {
		o.CardTransactionID = t.ID
	} else {
		o.TransactionID = t.ID
		o.ValueDate = t.ValueDate
	}
	return o
}
