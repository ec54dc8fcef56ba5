package mockdata

import (
	"time"

	"github.com/obgw/obgw/backend/civildate"
)

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
	if len(s) < 10 || !civildate.Valid(s[:10]) {
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

// notFuture reports whether d is before the current time: a date-time at
// most clockSkew after now, a date no later than the bank's today.
func notFuture(d dateValue, now time.Time, today string) bool {
	if d.hasTime {
		return !d.instant.After(now.Add(clockSkew))
	}
	return d.civil <= today
}
