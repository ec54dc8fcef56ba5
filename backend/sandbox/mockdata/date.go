package mockdata

import "time"

// dateValue is a parsed bookingDate, transactionDate or other ISO 8601
// date field.
type dateValue struct {
	// civil is the calendar date as written (YYYY-MM-DD); for a date-time
	// it is the date at the value's own offset.
	civil string
	// instant is set for a date-time.
	instant time.Time
	hasTime bool
}

const (
	ruleDate     = "must be an ISO 8601 date (2026-11-21) or date-time with offset (2026-11-21T10:00:00+01:00)"
	ruleDateTime = "must be an ISO 8601 date-time with offset (2026-11-21T10:00:00+01:00 or 2026-11-21T09:00:00Z)"
	ruleNoOffset = "date-time needs a UTC offset: add Z or +01:00 (2026-11-21T10:00:00+01:00), or send the date alone"
)

// clockSkew is how far a date-time may lie after the server's clock and
// still count as "before the current time": the clock deviation allowed
// for signed requests (interface description, Limits), so a TPP that
// stamps a transaction with its own "now" is not refused for a clock a few
// seconds fast.
const clockSkew = 60 * time.Second

// parseDate reads an ISO 8601 date or an RFC 3339 date-time with offset
// (the two forms of contract section 1). It returns the rule broken, or "".
func parseDate(s string) (dateValue, string) {
	if len(s) < 10 || !isCivilDate(s[:10]) {
		return dateValue{}, ruleDate
	}
	if len(s) == 10 {
		return dateValue{civil: s}, ""
	}
	if s[10] != 'T' {
		return dateValue{}, ruleDate
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if _, err2 := time.Parse("2006-01-02T15:04:05.999999999", s); err2 == nil {
			return dateValue{}, ruleNoOffset
		}
		return dateValue{}, ruleDate
	}
	return dateValue{civil: s[:10], instant: t, hasTime: true}, ""
}

// parseDateTime reads an RFC 3339 date-time with offset.
func parseDateTime(s string) (time.Time, string) {
	d, rule := parseDate(s)
	if rule == ruleDate || (rule == "" && !d.hasTime) {
		return time.Time{}, ruleDateTime
	}
	return d.instant, rule
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
	y := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m := int(s[5]-'0')*10 + int(s[6]-'0')
	d := int(s[8]-'0')*10 + int(s[9]-'0')
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// bankToday returns today's date at the bank, in Norway (Europe/Oslo:
// CET, and CEST from the last Sunday of March to the last Sunday of
// October, switching at 01:00 UTC). The EU rule is computed here so that
// the check needs no time zone database on the host.
func bankToday(now time.Time) string {
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

// notFuture reports whether d is before the current time: a date-time at
// most clockSkew after now, a date no later than the bank's today.
func notFuture(d dateValue, now time.Time, today string) bool {
	if d.hasTime {
		return !d.instant.After(now.Add(clockSkew))
	}
	return d.civil <= today
}
