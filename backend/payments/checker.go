package payments

import (
	"strconv"
	"strings"
	"sync"
)

// checker walks a decoded body, collecting FieldErrors. Paths are built
// only when an error is reported or for the payments of a bulk, so a
// valid single payment costs no path strings at all.
type checker struct {
	t tree
	// today is the bank's date (YYYY-MM-DD) and last the latest execution
	// date accepted (one year after today), in the same form.
	today string
	last  [10]byte
	errorList
}

// checkers recycles checkers with their decoding slices: a parse then
// allocates little beyond the copy of the body, whose substrings the
// parsed values keep. Nothing returned references a checker.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// maxPooledNodes keeps the slices of a large bulk body out of the pool.
const maxPooledNodes = 1 << 13

// decodeBody bounds and decodes a body; on failure it returns the one
// FieldError that says why. The caller releases the checker.
func decodeBody(body []byte, maxBytes int, today string) (*checker, []FieldError) {
	if len(body) > maxBytes {
		return nil, []FieldError{{Path: "$", Rule: "body is larger than " + strconv.Itoa(maxBytes>>10) + " KiB; send a smaller body"}}
	}
	last := oneYearAfter(today)
	c := checkers.Get().(*checker)
	c.today, c.last = today, last
	if err := c.t.decode(string(body)); err != nil {
		c.release()
		return nil, []FieldError{err.fieldError()}
	}
	return c, nil
}

// release returns c to the pool, keeping its slices but no string of the
// body and not the errors, which belong to the caller.
func (c *checker) release() {
	if cap(c.t.nodes) > maxPooledNodes {
		return
	}
	// Strings of the last body stay in the slices' spare capacity until
	// overwritten; they are substrings of a body already parsed, and the
	// pool drops idle checkers at the next garbage collection.
	c.errorList = errorList{}
	c.today = ""
	checkers.Put(c)
}

// lastDate returns the latest execution date accepted, for error texts.
func (c *checker) lastDate() string {
	return string(c.last[:])
}

// node returns the node at index i.
func (c *checker) node(i int32) *node {
	return &c.t.nodes[i]
}

// object is one JSON object being checked. Its path is base, followed by
// the member name key when not "" and the array index when not negative:
// built only when needed, so that checking a valid body costs no path
// strings.
type object struct {
	c       *checker
	members []member
	base    string
	key     string
	index   int
}

// path returns the JSON path of the object.
func (o object) path() string {
	p := o.base
	if o.key != "" {
		p = keyPath(p, o.key)
	}
	if o.index >= 0 {
		p = indexPath(p, o.index)
	}
	return p
}

// at returns the path of the member name.
func (o object) at(name string) string {
	return keyPath(o.path(), name)
}

// fieldSet is the member names an object may hold, and for some names
// that it may not hold, the rule a TPP sees when one is sent (a field of
// another kind of payment, say).
type fieldSet struct {
	names []string
	hints map[string]string
}

// object checks that node i is an object whose member names are all in
// fs, each at most once. Unknown members are refused: a misspelt optional
// field would otherwise be dropped without a word. It returns ok=false
// only when the node is not an object.
func (c *checker) object(i int32, at object, fs *fieldSet) (object, bool) {
	n := c.node(i)
	at.c = c
	if n.kind != kindObject {
		c.add(at.path(), "must be an object, got "+n.kind.String())
		return object{}, false
	}
	ms := c.t.objectMembers(n)
	at.members = ms
	for j, m := range ms {
		if !contains(fs.names, m.key) {
			c.add(at.at(m.key), unknownRule(m.key, fs))
			continue
		}
		for _, prev := range ms[:j] {
			if prev.key == m.key {
				c.add(at.at(m.key), "appears more than once; send each field once")
				break
			}
		}
	}
	return at, true
}

// rootObject checks the top-level value as an object of fs.
func (c *checker) rootObject(fs *fieldSet) (object, bool) {
	return c.object(root, object{base: "$", index: -1}, fs)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unsupportedFields are Berlin Group v1.3 payment fields this bank does
// not take, named so that a TPP is told that rather than "unknown".
var unsupportedFields = map[string]bool{
	"ultimateDebtor": true, "ultimateCreditor": true, "purposeCode": true, "chargeBearer": true,
	"creditorAgentName": true, "debtorName": true, "debtorId": true, "creditorId": true,
	"requestedExecutionTime": true, "instructionIdentification": true, "remittanceInformationUnstructuredArray": true,
	"currencyOfTransfer": true, "serviceLevel": true, "instructionPriority": true, "debtorAgent": true,
	"ultimateDebtorId": true, "ultimateCreditorId": true, "creditorNameAndAddress": true,
	"pan": true, "maskedPan": true, "msisdn": true, "other": true,
}

// unknownRule says a member is not a field of the object: its hint if fs
// has one, that the bank does not support it, or the field it was
// probably meant to be (same name in another case, or one or two typos
// away).
func unknownRule(key string, fs *fieldSet) string {
	if h, ok := fs.hints[key]; ok {
		return h
	}
	if unsupportedFields[key] {
		return "is a Berlin Group field this bank does not support for this payment; remove it"
	}
	for _, f := range fs.names {
		if strings.EqualFold(f, key) {
			return "is not a known field; did you mean " + f + "? (field names are case-sensitive)"
		}
	}
	if f := closestField(key, fs.names); f != "" {
		return "is not a known field; did you mean " + f + "?"
	}
	return "is not a known field of this object; remove it (field names are case-sensitive)"
}

// closestField returns the field of names at most two edits (insertion,
// deletion, substitution or swap of neighbours) from key, or "" when none
// or more than one is that close. Short names need to be closer: one edit
// below six letters, so that "iban" does not suggest "bban" for "ibn".
func closestField(key string, names []string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestD, ties := "", 3, 0
	for _, f := range names {
		limit := 2
		if len(f) < 6 {
			limit = 1
		}
		d := editDistance(strings.ToLower(key), strings.ToLower(f))
		switch {
		case d > limit || d > bestD:
		case d < bestD:
			best, bestD, ties = f, d, 0
		default:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b
// (Levenshtein plus swaps of neighbours), on bytes.
func editDistance(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 2 {
		return 3
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// lookup returns the value of member name; present is false when it is
// missing or null (null counts as absent, as OpenAPI-generated clients
// send it for unset optional fields).
func (o object) lookup(name string) (n *node, idx int32, present bool) {
	for _, m := range o.members {
		if m.key == name {
			n = &o.c.t.nodes[m.val]
			return n, m.val, n.kind != kindNull
		}
	}
	return nil, 0, false
}

// has reports whether member name is present and not null.
func (o object) has(name string) bool {
	_, _, ok := o.lookup(name)
	return ok
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

// plainText returns the string field name. A required text must not be
// empty or blank; an optional one that is empty counts as absent. Like
// every getter below, ok is false exactly when an error was reported, and
// an absent optional field gives "". The characters were checked by the
// decoder.
func (o object) plainText(name string, required bool) (string, bool) {
	n, p := o.field(name, required, kindString)
	if p != valid {
		return "", p == absent
	}
	if blank(n.text) {
		if required {
			o.c.add(o.at(name), "must not be empty")
			return "", false
		}
		if n.text == "" {
			return "", true
		}
	}
	return n.text, true
}

// text returns the string field name of at most maxRunes characters.
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

// code returns a text field that must pass valid (which bounds its
// length), with rule as the error text when it does not.
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
func (o object) child(name string, required bool, fs *fieldSet) (object, presence) {
	n, idx, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return object{}, invalid
		}
		return object{}, absent
	}
	obj, ok := o.c.object(idx, object{base: o.path(), key: name, index: -1}, fs)
	if !ok {
		return object{}, invalid
	}
	return obj, valid
}

// list returns the elements of the array field name (min to max of them);
// what names the elements in error texts.
func (o object) list(name string, required bool, what string, min, max int) ([]int32, presence) {
	n, _, ok := o.lookup(name)
	if !ok {
		if required {
			o.missing(name, n)
			return nil, invalid
		}
		return nil, absent
	}
	if n.kind != kindArray {
		o.c.add(o.at(name), "must be an array of "+what+", got "+n.kind.String())
		return nil, invalid
	}
	if int(n.count) < min || int(n.count) > max {
		o.c.add(o.at(name), "holds "+strconv.Itoa(int(n.count))+" "+what+"; send "+strconv.Itoa(min)+" to "+strconv.Itoa(max))
		return nil, invalid
	}
	return o.c.t.elements(n), valid
}

// boolField returns the optional boolean field name (a JSON boolean, as
// Berlin Group types it).
func (o object) boolField(name string) (bool, bool) {
	n, p := o.field(name, false, kindBool)
	if p != valid {
		return false, p == absent
	}
	return n.flag, true
}
