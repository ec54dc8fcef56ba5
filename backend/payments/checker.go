package payments

import (
	"strconv"
	"sync"

	"github.com/obgw/obgw/backend/strictjson"
)

// checker walks a decoded body (strictjson, with characters refused while
// decoding), collecting FieldErrors. Paths are built only when an error is
// reported or for the payments of a bulk, so a valid single payment costs
// no path strings at all.
type checker struct {
	strictjson.Checker
	// today is the bank's date (YYYY-MM-DD) and last the latest execution
	// date accepted (one year after today), in the same form.
	today string
	last  [10]byte
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
	if errs := c.Decode(string(body), strictjson.RefuseCharacters); errs != nil {
		c.release()
		return nil, errs
	}
	return c, nil
}

// release returns c to the pool, keeping its slices but no string of the
// body and not the errors, which belong to the caller.
func (c *checker) release() {
	if c.Capacity() > maxPooledNodes {
		return
	}
	// Strings of the last body stay in the slices' spare capacity until
	// overwritten; they are substrings of a body already parsed, and the
	// pool drops idle checkers at the next garbage collection.
	c.Reset()
	c.today = ""
	checkers.Put(c)
}

// lastDate returns the latest execution date accepted, for error texts.
func (c *checker) lastDate() string {
	return string(c.last[:])
}

// object is one JSON object of a payment body being checked: the getters
// of strictjson.Object, and the checker with the bank's date.
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

// unsupportedFields are Berlin Group v1.3 payment fields this bank does
// not take, named so that a TPP is told that rather than "unknown".
var unsupportedFields = []string{
	"ultimateDebtor", "ultimateCreditor", "purposeCode", "chargeBearer",
	"creditorAgentName", "debtorName", "debtorId", "creditorId",
	"requestedExecutionTime", "instructionIdentification", "remittanceInformationUnstructuredArray",
	"currencyOfTransfer", "serviceLevel", "instructionPriority", "debtorAgent",
	"ultimateDebtorId", "ultimateCreditorId", "creditorNameAndAddress",
	"pan", "maskedPan", "msisdn", "other",
}

const ruleUnsupported = "is a Berlin Group field this bank does not support for this payment; remove it"

// fieldSet returns the member names an object of a payment body may hold:
// names, and for other names the rule of hints, or for the
// unsupportedFields that the bank does not support them.
func fieldSet(names []string, hints map[string]string) *strictjson.FieldSet {
	all := make(map[string]string, len(hints)+len(unsupportedFields))
	for _, f := range unsupportedFields {
		all[f] = ruleUnsupported
	}
	for k, v := range hints {
		all[k] = v
	}
	return &strictjson.FieldSet{Names: names, Hints: all}
}
