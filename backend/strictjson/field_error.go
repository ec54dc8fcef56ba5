package strictjson

import "github.com/obgw/obgw/jsonscan"

// FieldError is one broken rule of a request body: the JSON path of the
// value at fault, JSONPath style from the root "$" (for example
// "$.instructedAmount.amount" or "$[0].cardAcceptorAddress.street"), and
// the rule it breaks, worded so that a TPP developer knows what to change.
// The caller maps each one to a tppMessage of a 400 FORMAT_ERROR.
type FieldError struct {
	// Path is the JSON path of the value, member or array at fault.
	Path string
	// Rule says what is wrong and how to fix it; it quotes no input value.
	Rule string
}

// Error returns "<path>: <rule>".
func (e FieldError) Error() string {
	return e.Path + ": " + e.Rule
}

// MaxPathBytes is the length past which the path of a syntax error is cut
// with "...": a path deep in nested junk must not fill an error body.
const MaxPathBytes = 256

// keyPath appends the member name key to base: ".key" for an identifier,
// "['...']" otherwise, with anything but printable ASCII written as a \u
// escape so that a path never carries a control, bidi or invalid character
// into an error body or a log (jsonscan.AppendName, the one renderer).
func keyPath(base, key string) string {
	return string(jsonscan.AppendName([]byte(base), key, false))
}

// indexPath appends the array index i to base.
func indexPath(base string, i int) string {
	return string(jsonscan.AppendIndex([]byte(base), i))
}

// runeName writes r as "U+000A" for error texts.
func runeName(r rune) string {
	return jsonscan.RuneName(r)
}
