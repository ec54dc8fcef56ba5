package payments

import (
	"time"

	"github.com/obgw/obgw/backend/civildate"
)

// Today returns the date (YYYY-MM-DD) at the bank, in Norway
// (civildate.Today), at instant now: the today argument of ParsePayment,
// ParsePeriodic and ParseBulk.
func Today(now time.Time) string {
	return civildate.Today(now)
}

// civilParts returns the year, month and day of a date civildate.Valid
// accepts.
func civilParts(s string) (y, m, d int) {
	y = int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m = int(s[5]-'0')*10 + int(s[6]-'0')
	d = int(s[8]-'0')*10 + int(s[9]-'0')
	return y, m, d
}

// oneYearAfter returns the date one year after today, YYYY-MM-DD in an
// array so that comparing with it allocates nothing (29 February goes to
// 1 March; 9999 stays at its last day). It panics when today is not a
// date: that is a bug of the caller (use Today), not a fault of the
// request.
func oneYearAfter(today string) [10]byte {
	if !civildate.Valid(today) {
		panic("payments: today must be a date YYYY-MM-DD (use payments.Today)")
	}
	var out [10]byte
	copy(out[:], today)
	y, m, d := civilParts(today)
	if y == 9999 {
		copy(out[4:], "-12-31")
		return out
	}
	y++
	if m == 2 && d == 29 && !(y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
		m, d = 3, 1
	}
	out[0], out[1], out[2], out[3] = byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10)
	out[5], out[6], out[8], out[9] = byte('0'+m/10), byte('0'+m%10), byte('0'+d/10), byte('0'+d%10)
	return out
}

const ruleDate = "must be an ISO 8601 date such as 2026-11-21"

// date returns the date field name (YYYY-MM-DD; Berlin Group types
// execution dates as ISODate, so a date-time is refused).
func (o object) date(name string, required bool) (string, bool) {
	return o.Code(name, required, civildate.Valid, ruleDate)
}

// executionDate returns the date field name, which must lie from today to
// one year ahead. Dates are compared as strings: YYYY-MM-DD sorts by date.
func (o object) executionDate(name string, required bool) (string, bool) {
	s, ok := o.date(name, required)
	switch {
	case !ok || s == "":
		return s, ok
	case s < o.c.today:
		o.Report(name, "must not be in the past (today is "+o.c.today+" in Norway)")
	case s > string(o.c.last[:]):
		o.Report(name, "must be at most one year ahead (no later than "+o.c.lastDate()+")")
	default:
		return s, true
	}
	return "", false
}
