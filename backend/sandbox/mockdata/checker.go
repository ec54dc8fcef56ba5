package mockdata

import (
	"strconv"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/strictjson"
)

// checker walks a decoded body (strictjson, with characters checked by
// the text getters so that they are reported among the body's other
// errors), collecting FieldErrors. Paths are built only when an error is
// reported.
type checker struct {
	strictjson.Checker
	now   time.Time
	today string // the bank's civil date of now
}

// decodeBody bounds and decodes a body; on failure it returns the one
// FieldError that says why.
func decodeBody(body []byte, now time.Time) (*checker, []FieldError) {
	if len(body) > MaxBodyBytes {
		return nil, []FieldError{{Path: "$", Rule: "body is larger than " + strconv.Itoa(MaxBodyBytes>>20) + " MiB; send fewer items per request"}}
	}
	c := &checker{now: now, today: civildate.Today(now)}
	if errs := c.Decode(string(body), strictjson.FlagCharacters); errs != nil {
		return nil, errs
	}
	return c, nil
}

// object is one JSON object of a mock-data body being checked: the
// getters of strictjson.Object, and the checker with the current time.
type object struct {
	strictjson.Object
	c *checker
}

// rootObject checks the top-level value as an object of fs.
func (c *checker) rootObject(fs *strictjson.FieldSet) (object, bool) {
	o, ok := c.RootObject(fs)
	return object{o, c}, ok
}

// element checks element i of l as an object of fs.
func (c *checker) element(l strictjson.Array, i int, fs *strictjson.FieldSet) (object, bool) {
	o, ok := l.Object(i, fs)
	return object{o, c}, ok
}

// child returns the nested object field name.
func (o object) child(name string, required bool, fs *strictjson.FieldSet) (object, strictjson.Presence) {
	ch, p := o.Child(name, required, fs)
	return object{ch, o.c}, p
}

// int32Field returns the whole-number field name: a JSON integer literal
// (no fraction, no exponent, not a string) within int32, as the
// description types amounts.
func (o object) int32Field(name string, required bool) (int64, bool) {
	n, p := o.Field(name, required, strictjson.KindNumber)
	if p != strictjson.Valid {
		return 0, p == strictjson.Absent
	}
	lit := n.Text
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			o.Report(name, "must be a whole number of currency units (an int32 JSON integer such as 1500), without fraction or exponent")
			return 0, false
		}
	}
	v, err := strconv.ParseInt(lit, 10, 32)
	if err != nil {
		o.Report(name, "is outside the int32 range -2147483648..2147483647")
		return 0, false
	}
	return v, true
}

// date returns the ISO 8601 date field name, normalised to its civil date.
func (o object) date(name string, required bool) (dateValue, bool) {
	s, ok := o.PlainText(name, required)
	if !ok || s == "" {
		return dateValue{}, ok
	}
	d, rule := parseDate(s)
	if rule != "" {
		o.Report(name, rule)
		return dateValue{}, false
	}
	return d, true
}

// pastDate returns the date field name, which must be before the current
// time.
func (o object) pastDate(name string, required bool) (dateValue, bool) {
	d, ok := o.date(name, required)
	if !ok || d.civil == "" {
		return d, ok
	}
	if !notFuture(d, o.c.now, o.c.today) {
		o.Report(name, "must be before the current time (today is "+o.c.today+" in Norway); it is in the future")
		return d, false
	}
	return d, true
}

// dateTime returns the optional date-time field name, in UTC.
func (o object) dateTime(name string) (time.Time, bool) {
	s, ok := o.PlainText(name, false)
	if !ok || s == "" {
		return time.Time{}, ok
	}
	t, rule := parseDateTime(s)
	if rule != "" {
		o.Report(name, rule)
		return time.Time{}, false
	}
	return t.UTC(), true
}
