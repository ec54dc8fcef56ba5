package payments

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/obgw/obgw/backend/strictjson"
)

// Periodic is a validated periodic payment body (Berlin Group v1.3
// periodicPaymentInitiation): a payment repeated from StartDate.
type Periodic struct {
	// Payment is the payment repeated; its RequestedExecutionDate is "".
	Payment
	// StartDate is the first execution date: YYYY-MM-DD, from today to one
	// year ahead.
	StartDate string
	// EndDate is the last possible execution date, not before StartDate,
	// or "" for no end.
	EndDate string
	// Frequency is a Berlin Group frequency code: Daily, Weekly,
	// EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual
	// or MonthlyVariable.
	Frequency string
	// ExecutionRule is "following", "preceding" or "": what to do when an
	// execution date is not a business day.
	ExecutionRule string
	// DayOfExecution is "1" to "31" (31 meaning the last day of the
	// month), or "".
	DayOfExecution string
	// MonthsOfExecution lists the months ("1" to "12", each at most once)
	// of frequency MonthlyVariable, and is nil for every other frequency.
	MonthsOfExecution []string
}

// frequencies are the Berlin Group v1.3 frequency codes.
var frequencies = []string{
	"Daily", "Weekly", "EveryTwoWeeks", "Monthly", "EveryTwoMonths",
	"Quarterly", "SemiAnnual", "Annual", "MonthlyVariable",
}

// frequencyMonthlyVariable is the frequency whose months are listed in
// monthsOfExecution.
const frequencyMonthlyVariable = "MonthlyVariable"

var periodicFields = fieldSet(
	append([]string{"debtorAccount", "startDate", "endDate", "frequency", "executionRule", "dayOfExecution",
		"monthsOfExecution"}, commonPaymentFields...),
	map[string]string{
		"requestedExecutionDate": "is not used for periodic payments: send the first execution date as startDate",
	},
)

const (
	ruleFrequency     = "must be one of Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable"
	ruleExecutionRule = `must be "following" or "preceding"`
	ruleDay           = `must be a day of the month "1" to "31" as a string, without leading zero ("31" is the last day)`
	ruleMonth         = `must be a month "1" to "12" as a string, without leading zero`
)

// ParsePeriodic parses and validates the body of POST
// /v1/periodic-payments/{product}, as ParsePayment does a payment: the
// payment fields but requestedExecutionDate, and the schedule.
func ParsePeriodic(product string, body []byte, today string) (Periodic, []FieldError) {
	if errs := checkProduct(product); errs != nil {
		return Periodic{}, errs
	}
	c, errs := decodeBody(body, MaxBodyBytes, today)
	if errs != nil {
		return Periodic{}, errs
	}
	var pp Periodic
	if o, ok := c.rootObject(periodicFields); ok {
		pp.Payment = o.payment(product, periodicPayment, AccountReference{})
		o.schedule(&pp)
	}
	errs = c.Errors()
	c.release()
	if errs != nil {
		return Periodic{}, errs
	}
	return pp, nil
}

// schedule checks the fields of a periodic payment that say when it runs.
func (o object) schedule(pp *Periodic) {
	var startOK bool
	pp.StartDate, startOK = o.executionDate("startDate", true)
	pp.EndDate, _ = o.date("endDate", false)
	if startOK && pp.EndDate != "" && pp.EndDate < pp.StartDate {
		o.Report("endDate", "must not be before startDate")
		pp.EndDate = ""
	}
	freq, freqOK := o.PlainText("frequency", true)
	if freqOK && !validFrequency(freq) {
		rule := ruleFrequency
		for _, f := range frequencies {
			if strings.EqualFold(f, freq) {
				rule = "must be spelt " + f + " (frequency codes are case-sensitive)"
			}
		}
		o.Report("frequency", rule)
		freq, freqOK = "", false
	}
	pp.Frequency = freq
	pp.ExecutionRule, _ = o.Code("executionRule", false, validExecutionRule, ruleExecutionRule)
	pp.DayOfExecution, _ = o.Code("dayOfExecution", false, func(s string) bool { return validNumber(s, 31) }, ruleDay)
	switch {
	case !freqOK:
		// Whether monthsOfExecution belongs depends on the frequency.
	case pp.Frequency == frequencyMonthlyVariable:
		pp.MonthsOfExecution = o.months()
	case o.Has("monthsOfExecution"):
		o.Report("monthsOfExecution", "is only allowed with frequency MonthlyVariable; remove it")
	}
}

// months checks monthsOfExecution of a MonthlyVariable payment: 1 to 11
// distinct months (release 1.18.1 refuses duplicates). All 12 months are
// refused, naming the frequency that says it (Monthly): Berlin Group
// bounds the list to 11 entries, and reading it as Monthly would execute
// something other than what the TPP sent.
func (o object) months() []string {
	months, p := o.List("monthsOfExecution", true, "months", 0, math.MaxInt32)
	if p != strictjson.Valid {
		return nil
	}
	if n := months.Len(); n == 0 || n > 12 {
		o.Report("monthsOfExecution", "holds "+strconv.Itoa(n)+" months; send 1 to "+strconv.Itoa(MaxMonthsOfExecution)+" distinct months")
		return nil
	}
	out := make([]string, 0, months.Len())
	var seen [13]int // index+1 of the element naming each month
	for i := range months.Len() {
		n := months.Value(i)
		rule := ""
		switch {
		case n.Kind != strictjson.KindString:
			rule = ruleMonth + ", got " + n.Kind.String()
		case !validNumber(n.Text, 12):
			rule = ruleMonth
		default:
			m := int(n.Text[0] - '0')
			if len(n.Text) == 2 {
				m = m*10 + int(n.Text[1]-'0')
			}
			if seen[m] != 0 {
				rule = "repeats the month of monthsOfExecution[" + strconv.Itoa(seen[m]-1) + "]; list each month once"
			} else {
				seen[m] = i + 1
				out = append(out, n.Text)
				continue
			}
		}
		o.c.Add(months.Path(i), rule)
	}
	if len(out) != months.Len() {
		return nil
	}
	if len(out) > MaxMonthsOfExecution {
		o.Report("monthsOfExecution", "lists all 12 months, which is frequency Monthly: send frequency Monthly without monthsOfExecution (MonthlyVariable takes 1 to 11 months)")
		return nil
	}
	return out
}

// validNumber reports whether s is a decimal number from 1 to max (at most
// 99) without leading zero.
func validNumber(s string, max int) bool {
	if len(s) == 0 || len(s) > 2 || s[0] == '0' || !allDigits(s) {
		return false
	}
	v := int(s[0] - '0')
	if len(s) == 2 {
		v = v*10 + int(s[1]-'0')
	}
	return v <= max
}

func validFrequency(s string) bool {
	return slices.Contains(frequencies, s)
}

func validExecutionRule(s string) bool {
	return s == "following" || s == "preceding"
}
