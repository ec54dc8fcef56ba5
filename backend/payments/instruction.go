package payments

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// The kinds of payment initiation, as the store names them.
const (
	KindSingle   = "single"
	KindPeriodic = "periodic"
	KindBulk     = "bulk"
)

// Instruction is a validated initiation of any kind as the bank executes
// it: the amount (for a bulk the sum), the execution date (a periodic
// payment's start), the debtor and the payments to execute (a bulk's
// several). It is parsed once, when the payment is initiated (Parse), and
// stored with the payment as its JSON; nothing parses a stored body
// again. The JSON names of Instruction and of the types it holds are the
// stored form: a field may be renamed in Go, never in its tag
// (TestInstructionStoredForm).
type Instruction struct {
	Amount   Money            `json:"Amount"`
	Date     string           `json:"Date"`
	Debtor   AccountReference `json:"Debtor"`
	Creditor []Payment        `json:"Creditor"`
}

// Parse validates an initiation body of kind (KindSingle, KindPeriodic or
// KindBulk) and product as of today, and returns its instruction, or every
// rule the body breaks.
func Parse(kind, product string, body []byte, today string) (Instruction, []FieldError) {
	switch kind {
	case KindPeriodic:
		p, errs := ParsePeriodic(product, body, today)
		if len(errs) > 0 {
			return Instruction{}, errs
		}
		return Instruction{Amount: p.InstructedAmount, Date: p.StartDate, Debtor: p.DebtorAccount, Creditor: []Payment{p.Payment}}, nil
	case KindBulk:
		b, errs := ParseBulk(product, body, today)
		if len(errs) > 0 {
			return Instruction{}, errs
		}
		out := Instruction{Date: orToday(b.RequestedExecutionDate, today), Debtor: b.DebtorAccount, Creditor: b.Payments}
		for _, p := range b.Payments {
			out.Amount.Currency = p.InstructedAmount.Currency
			out.Amount.Minor += p.InstructedAmount.Minor
		}
		return out, nil
	default:
		p, errs := ParsePayment(product, body, today)
		if len(errs) > 0 {
			return Instruction{}, errs
		}
		return Instruction{Amount: p.InstructedAmount, Date: orToday(p.RequestedExecutionDate, today), Debtor: p.DebtorAccount, Creditor: []Payment{p}}, nil
	}
}

func orToday(date, today string) string {
	if date == "" {
		return today
	}
	return date
}

// ServedForm is a validated initiation body as a read of the payment
// serves it back: compact JSON without the members whose value is an
// empty string (in nested objects and arrays too: an optional member
// sent empty says nothing, and a read does not echo it). A body with no
// empty string is the body compacted, members and escapes as sent; one
// with an empty string is decoded, pruned and written again, members in
// name order. It is made once, when the payment is initiated, and stored
// as the payment's body, so that a read writes it out without parsing it.
// The same body always has the same served form, so a retry is
// recognised by it.
func ServedForm(body []byte) ([]byte, error) {
	if !bytes.Contains(body, []byte(`""`)) {
		// No empty string: an empty string is "" in JSON text, nothing
		// else, and a body without one loses nothing but its layout.
		var b bytes.Buffer
		if err := json.Compact(&b, body); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("payments: more than one JSON value")
	}
	dropEmpty(v)
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// dropEmpty removes the members whose value is an empty string.
func dropEmpty(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if s, ok := m.(string); ok && s == "" {
				delete(v, k)
				continue
			}
			dropEmpty(m)
		}
	case []any:
		for _, m := range v {
			dropEmpty(m)
		}
	}
}
