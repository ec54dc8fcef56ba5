package strictjson

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/obgw/obgw/jsonscan"
)

// Characters says where the characters that contract section 1 refuses
// are refused: while decoding, or by the text getters.
type Characters uint8

const (
	// FlagCharacters decodes strings as encoding/json does: invalid UTF-8
	// and lone surrogate escapes become U+FFFD, marked on the node
	// (Node.Replaced) or member (Member.KeyReplaced). The text getters
	// (Object.PlainText, Text, Code) then refuse a string holding a
	// refused character at the path of its field, among the body's other
	// errors, and a member name holding invalid UTF-8 matches no field.
	FlagCharacters Characters = iota
	// RefuseCharacters fails the decoding at the path of the first string
	// or member name holding a refused character, anywhere in the body,
	// with that one FieldError. Every string of a body decoded this way is
	// valid UTF-8 free of refused characters, so the getters need not
	// look again.
	RefuseCharacters
)

// runeProblem returns why rune r (decoded from size bytes) may not appear
// in a body, or "". The policy is jsonscan.Classify, the one statement of
// contract section 1's: invalid UTF-8, C0 and C1 controls, DEL, the bidi
// controls U+202A-U+202E and U+2066-U+2069, the noncharacters U+FFFE and
// U+FFFF, and everything outside the Basic Multilingual Plane (emoji).
// Escaped controls (\n, \t) are refused too: no field of these bodies is
// multi-line.
func runeProblem(r rune, size int) string {
	c := jsonscan.Classify(r)
	if r == utf8.RuneError && size <= 1 {
		c = jsonscan.InvalidUTF8
	}
	return classProblem(c, r)
}

// classProblem words the refusal of character r of class c, or "".
func classProblem(c jsonscan.Class, r rune) string {
	switch c {
	case jsonscan.Allowed, jsonscan.Surrogate:
		return ""
	case jsonscan.InvalidUTF8:
		return "is not valid UTF-8; send UTF-8 text"
	case jsonscan.OutsideBMP:
		return "holds a " + c.String() + "; remove it"
	}
	return "holds " + c.String() + " " + runeName(r) + "; remove it"
}

// textProblem returns why a string decoded with FlagCharacters may not be
// stored as a text value, or "": replaced marks a string in which the
// decoder replaced invalid UTF-8 or a lone surrogate (Node.Replaced); the
// other characters refused are runeProblem's.
func textProblem(s string, replaced bool) string {
	if replaced {
		return "is not valid UTF-8 (or holds a lone surrogate escape); send UTF-8 text"
	}
	_, r, c := jsonscan.FindRefused(s, false)
	return classProblem(c, r)
}

// lengthProblem returns a rule text when s has more than max characters.
func lengthProblem(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return ""
	}
	return "is longer than " + strconv.Itoa(max) + " characters; shorten it"
}

// blank reports whether s is empty or only spaces.
func blank(s string) bool {
	return strings.TrimLeft(s, " ") == ""
}
