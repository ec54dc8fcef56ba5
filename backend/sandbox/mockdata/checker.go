package mockdata

import (
	"strconv"
	"strings"
	"time"
)

// checker walks a decoded body, collecting FieldErrors. Paths are built
// only when an error is reported, so a valid body costs no path strings
// beyond one per nested object.
type checker struct {
	t     *tree
	now   time.Time
	today string // the bank's civil date of now
	errorList
}

// decodeBody bounds and decodes a body; on failure it returns the one
// FieldError that says why.
func decodeBody(body []byte, now time.Time) (*checker, []FieldError) {
	if len(body) > MaxBodyBytes {
		return nil, []FieldError{{Path: "$", Rule: "body is larger than " + strconv.Itoa(MaxBodyBytes>>20) + " MiB; send fewer items per request"}}
	}
	t, err := decodeJSON(string(body))
	if err != nil {
		return nil, []FieldError{err.fieldError()}
	}
	return &checker{t: t, now: now, today: bankToday(now)}, nil
}

// node returns the node at index i.
func (c *checker) node(i int32) *node {
	return &c.t.nodes[i]
}

// array checks that node i is an array of min to max elements and returns
// them; what names the elements in error texts ("card transactions").
func (c *checker) array(i int32, path, what string, min, max int) ([]int32, bool) {
	n := c.node(i)
	if n.kind != kindArray {
		c.add(path, "must be an array of "+what+", got "+n.kind.String())
		return nil, false
	}
	if int(n.count) < min || int(n.count) > max {
		c.add(path, "holds "+strconv.Itoa(int(n.count))+" "+what+"; send "+strconv.Itoa(min)+" to "+strconv.Itoa(max))
		return nil, false
	}
	return c.t.elements(n), true
}

// object is one JSON object being checked, with the member names it may
// hold.
type object struct {
	c       *checker
	members []member
	path    string
}

// object checks that node i is an object whose member names are all in
// fields, each at most once. Unknown members are refused: a misspelt
// optional field would otherwise be dropped without a word. It returns
// ok=false only when the node is not an object.
func (c *checker) object(i int32, path string, fields []string) (object, bool) {
	n := c.node(i)
	if n.kind != kindObject {
		c.add(path, "must be an object, got "+n.kind.String())
		return object{}, false
	}
	ms := c.t.objectMembers(n)
	for j, m := range ms {
		known := !m.keyBad && contains(fields, m.key)
		if !known {
			c.add(keyPath(path, m.key), unknownRule(m.key, fields))
			continue
		}
		for _, prev := range ms[:j] {
			if prev.key == m.key {
				c.add(keyPath(path, m.key), "appears more than once; send each field once")
				break
			}
		}
	}
	return object{c: c, members: ms, path: path}, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unknownRule says a member is not a field of the object, suggesting the
// field it differs from only in case.
func unknownRule(key string, fields []string) string {
	for _, f := range fields {
		if strings.EqualFold(f, key) {
			return "is not a known field; did you mean " + f + "? (field names are case-sensitive)"
		}
	}
	return "is not a known field of this object; remove it (field names are case-sensitive)"
}

// at returns the path of the member name.
func (o object) at(name string) string {
	return keyPath(o.path, name)
}

// lookup returns the value of member name; present is false when it is
// missing or null (null counts as absent, as OpenAPI-generated clients
// send it for unset optional fields).
func (o object) lookup(name string) (n *node, idx int32, present bool) {
	for _, m := range o.members {
		if m.key == name && !m.keyBad {
			n = &o.c.t.nodes[m.val]
			if n.kind == kindNull {
				return n, m.val, false
			}
			return n, m.val, true
		}
	}
	return nil, 0, false
}

// missing reports an absent required field.
func (o object) missing(name string, n *node) {
	if n != nil {
		o.c.add(o.at(name), "is required and must not be null")
		return
	}
	o.c.add(o.at(name), "is required")
}

// presence is what a field lookup found.
type presence uint8

const (
	// absent: an optional field missing or null.
	absent presence = iota
	// invalid: an error was reported (required field missing, wrong type
	// or value).
	invalid
	// valid: the field is present and passed its checks.
	valid
)

// field returns the value of member name, reporting it when required and
// absent, or not of kind k.
func (o object) field(name string, required bool, k jsonKind) (*node, presence) {
	n, _, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return nil, invalid
		}
		return nil, absent
	}
	if n.kind != k {
		o.c.add(o.at(name), "must be a "+k.String()+", got "+n.kind.String())
		return nil, invalid
	}
	return n, valid
}

// text returns the string field name, checked for characters and for at
// most maxRunes characters. Like every getter below, ok is false exactly
// when an error was reported, and an absent optional field gives the zero
// value.
func (o object) text(name string, required bool, maxRunes int) (string, bool) {
	s, ok := o.plainText(name, required)
	if !ok || s == "" {
		return s, ok
	}
	if p := lengthProblem(s, maxRunes); p != "" {
		o.c.add(o.at(name), p)
		return "", false
	}
	return s, true
}

// plainText returns the string field name checked for characters only. A
// required text must not be empty or blank; an optional one that is empty
// counts as absent.
func (o object) plainText(name string, required bool) (string, bool) {
	n, p := o.field(name, required, kindString)
	if p != valid {
		return "", p == absent
	}
	s := n.text
	if blank(s) {
		if required {
			o.c.add(o.at(name), "must not be empty")
			return "", false
		}
		if s == "" {
			return "", true
		}
	}
	if p := textProblem(s, n.flag); p != "" {
		o.c.add(o.at(name), p)
		return "", false
	}
	return s, true
}

// code returns a required or optional text field that must pass valid
// (which bounds its length), with rule as the error text when it does not.
func (o object) code(name string, required bool, valid func(string) bool, rule string) (string, bool) {
	s, ok := o.plainText(name, required)
	if !ok || s == "" {
		return s, ok
	}
	if !valid(s) {
		o.c.add(o.at(name), rule)
		return "", false
	}
	return s, true
}

// child returns the nested object field name.
func (o object) child(name string, required bool, fields []string) (object, presence) {
	n, idx, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return object{}, invalid
		}
		return object{}, absent
	}
	obj, ok := o.c.object(idx, o.at(name), fields)
	if !ok {
		return object{}, invalid
	}
	return obj, valid
}

// list returns the elements of the array field name (min to max of them).
func (o object) list(name string, required bool, what string, min, max int) ([]int32, presence) {
	n, idx, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return nil, invalid
		}
		return nil, absent
	}
	elems, ok := o.c.array(idx, o.at(name), what, min, max)
	if !ok {
		return nil, invalid
	}
	return elems, valid
}

// int32Field returns the whole-number field name: a JSON integer literal
// (no fraction, no exponent, not a string) within int32, as the
// description types amounts.
func (o object) int32Field(name string, required bool) (int64, bool) {
	n, p := o.field(name, required, kindNumber)
	if p != valid {
		return 0, p == absent
	}
	lit := n.text
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			o.c.add(o.at(name), "must be a whole number of currency units (an int32 JSON integer such as 1500), without fraction or exponent")
			return 0, false
		}
	}
	v, err := strconv.ParseInt(lit, 10, 32)
	if err != nil {
		o.c.add(o.at(name), "is outside the int32 range -2147483648..2147483647")
		return 0, false
	}
	return v, true
}

// boolField returns the boolean field name. With lenient set, the JSON
// strings "true" and "false" are accepted too.
func (o object) boolField(name string, required, lenient bool) (bool, bool) {
	n, _, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return false, false
		}
		return false, true
	}
	switch {
	case n.kind == kindBool:
		return n.flag, true
	case lenient && n.kind == kindString && n.text == "true":
		return true, true
	case lenient && n.kind == kindString && n.text == "false":
		return false, true
	case lenient:
		o.c.add(o.at(name), `must be true or false (a JSON boolean, or the string "true" or "false")`)
	default:
		o.c.add(o.at(name), "must be a boolean, got "+n.kind.String())
	}
	return false, false
}

// date returns the ISO 8601 date field name, normalised to its civil date.
func (o object) date(name string, required bool) (dateValue, bool) {
	s, ok := o.plainText(name, required)
	if !ok || s == "" {
		return dateValue{}, ok
	}
	d, rule := parseDate(s)
	if rule != "" {
		o.c.add(o.at(name), rule)
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
		o.c.add(o.at(name), "must be before the current time (today is "+o.c.today+" in Norway); it is in the future")
		return d, false
	}
	return d, true
}

// dateTime returns the optional date-time field name, in UTC.
func (o object) dateTime(name string) (time.Time, bool) {
	s, ok := o.plainText(name, false)
	if !ok || s == "" {
		return time.Time{}, ok
	}
	t, rule := parseDateTime(s)
	if rule != "" {
		o.c.add(o.at(name), rule)
		return time.Time{}, false
	}
	return t.UTC(), true
}
