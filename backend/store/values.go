package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// Scanners and argument helpers that make the two drivers look alike:
// SQLite returns instants as text and booleans as integers, PostgreSQL as
// time.Time and bool; optional references are NULL rather than "".

// instantScan scans an instant column (TIMESTAMPTZ or UTC text) into a UTC
// time; NULL gives the zero time.
type instantScan struct{ t *time.Time }

// Scan implements sql.Scanner.
func (v instantScan) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*v.t = time.Time{}
	case time.Time:
		*v.t = x.UTC()
	case string:
		return v.parse(x)
	case []byte:
		return v.parse(string(x))
	default:
		return fmt.Errorf("store: cannot scan %T as an instant", src)
	}
	return nil
}

// parse reads the text form of an instant.
func (v instantScan) parse(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("store: stored instant %q: %w", s, err)
	}
	*v.t = t.UTC()
	return nil
}

// optString scans a nullable text column; NULL gives "".
type optString struct{ s *string }

// Scan implements sql.Scanner.
func (v optString) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*v.s = ""
	case string:
		*v.s = x
	case []byte:
		*v.s = string(x)
	default:
		return fmt.Errorf("store: cannot scan %T as text", src)
	}
	return nil
}

// jsonScan scans a nullable JSON text column; NULL or "" gives nil.
type jsonScan struct{ j *json.RawMessage }

// Scan implements sql.Scanner.
func (v jsonScan) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*v.j = nil
	case string:
		if x == "" {
			*v.j = nil
		} else {
			*v.j = json.RawMessage(x)
		}
	case []byte:
		if len(x) == 0 {
			*v.j = nil
		} else {
			// The driver may reuse x after Scan returns.
			*v.j = append(json.RawMessage(nil), x...)
		}
	default:
		return fmt.Errorf("store: cannot scan %T as JSON", src)
	}
	return nil
}

// optRef is the argument for an optional reference: NULL for "", so a
// foreign key is only checked when there is something to check.
func optRef(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// jsonArg validates an optional JSON value and returns its argument: NULL
// when empty, its text otherwise.
func jsonArg(what string, j json.RawMessage) (any, error) {
	if len(j) == 0 {
		return nil, nil
	}
	if !json.Valid(j) {
		return nil, fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, what)
	}
	return string(j), nil
}

// checkDate validates an optional civil date (YYYY-MM-DD).
func checkDate(what, d string) error {
	if d == "" {
		return nil
	}
	if len(d) != 10 || d[4] != '-' || d[7] != '-' {
		return fmt.Errorf("%w: %s %.20q is not a date (YYYY-MM-DD)", ErrInvalid, what, d)
	}
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return fmt.Errorf("%w: %s %.20q is not a date (YYYY-MM-DD)", ErrInvalid, what, d)
	}
	return nil
}

// lastDate is the highest date checkDate admits, and so at least every
// booking date stored (all are YYYY-MM-DD).
const lastDate = "9999-12-31"

// dateBounds turns a filter's dates (checked by checkDate; "" for none)
// into the bounds of a range that holds every date when none is given:
// "" is below every date, lastDate not below any.
func dateBounds(from, to string) (string, string) {
	if to == "" {
		to = lastDate
	}
	return from, to
}

// oneOf validates that v is one of allowed.
func oneOf(what, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%w: %s %.40q is not one of %v", ErrInvalid, what, v, allowed)
}

// utc normalises a caller's instant to what the store keeps: UTC,
// microseconds; the zero time stays zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}
