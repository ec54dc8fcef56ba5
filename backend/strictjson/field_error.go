package strictjson

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// maxPathKeyRunes caps how much of one member name a path shows.
const maxPathKeyRunes = 64

// keyPath appends the member name key to base: ".key" for an identifier,
// "['...']" otherwise, with anything but printable ASCII written as a \u
// escape so that a path never carries a control, bidi or invalid character
// into an error body or a log.
func keyPath(base, key string) string {
	if isIdentifier(key) {
		return base + "." + key
	}
	var sb strings.Builder
	sb.WriteString(base)
	sb.WriteString("['")
	n := 0
	for _, r := range key {
		if n == maxPathKeyRunes {
			sb.WriteString("...")
			break
		}
		n++
		switch {
		case r == '\'' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			sb.WriteRune(r)
		default:
			writeEscapedRune(&sb, r)
		}
	}
	sb.WriteString("']")
	return sb.String()
}

// indexPath appends the array index i to base.
func indexPath(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

func isIdentifier(s string) bool {
	if s == "" || len(s) > maxPathKeyRunes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// writeEscapedRune writes r as \uXXXX (a surrogate pair past the BMP).
func writeEscapedRune(sb *strings.Builder, r rune) {
	if r > 0xffff && r <= utf8.MaxRune {
		r -= 0x10000
		writeU(sb, 0xd800+(r>>10)&0x3ff)
		writeU(sb, 0xdc00+r&0x3ff)
		return
	}
	writeU(sb, r)
}

func writeU(sb *strings.Builder, r rune) {
	const hexDigits = "0123456789ABCDEF"
	sb.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		sb.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

// runeName writes r as "U+000A" for error texts.
func runeName(r rune) string {
	s := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	for len(s) < 4 {
		s = "0" + s
	}
	return "U+" + s
}
