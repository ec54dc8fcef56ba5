package payments

import "time"

// Today returns the date (YYYY-MM-DD) at the bank, in Norway
// (Europe/Oslo: CET, and CEST from the last Sunday of March to the last
// Sunday of October, switching at 01:00 UTC), at instant now: the today
// argument of ParsePayment, ParsePeriodic and ParseBulk. The EU rule is
// computed here so that no time zone database is needed on the host.
func Today(now time.Time) string {
	u := now.UTC()
	offset := time.Hour
	if start, end := lastSunday(u.Year(), time.March), lastSunday(u.Year(), time.October); !u.Before(start) && u.Before(end) {
		offset = 2 * time.Hour
	}
	return u.Add(offset).Format(time.DateOnly)
}

// lastSunday returns 01:00 UTC on the last Sunday of month m of year y.
func lastSunday(y int, m time.Month) time.Time {
	last := time.Date(y, m+1, 0, 1, 0, 0, 0, time.UTC)
	return last.AddDate(0, 0, -int(last.Weekday()))
}

// isCivilDate reports whether s is YYYY-MM-DD naming a real calendar day.
func isCivilDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	y, m, d := civilParts(s)
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

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
	if !isCivilDate(today) {
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
	return o.code(name, required, isCivilDate, ruleDate)
}

// executionDate returns the date field name, which must lie from today to
// one year ahead. Dates are compared as strings: YYYY-MM-DD sorts by date.
func (o object) executionDate(name string, required bool) (string, bool) {
	s, ok := o.date(name, required)
	switch {
	case !ok || s == "":
		return s, ok
	case s < o.c.today:
		o.c.add(o.at(name), "must not be in the past (today is "+o.c.today+" in Norway)")
	case s > string(o.c.last[:]):
		o.c.add(o.at(name), "must be at most one year ahead (no later than "+o.c.lastDate()+")")
	default:
		return s, true
	}
	return "", false
}
