package payments

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// runeProblem returns why rune r (decoded from size bytes) may not appear
// in a body, or "". The characters refused are those of contract section
// 1: invalid UTF-8, C0 and C1 controls, DEL, the bidi controls
// U+202A-U+202E and U+2066-U+2069, the noncharacters U+FFFE and U+FFFF, and
// everything outside the Basic Multilingual Plane (emoji). Escaped controls
// (\n, \t) are refused too: no field of a payment body is multi-line.
func runeProblem(r rune, size int) string {
	switch {
	case r == utf8.RuneError && size <= 1:
		return "is not valid UTF-8; send UTF-8 text"
	case r < 0x20 || r == 0x7f:
		return "holds control character " + runeName(r) + "; remove it"
	case r >= 0x80 && r <= 0x9f:
		return "holds C1 control character " + runeName(r) + "; remove it"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "holds bidirectional control character " + runeName(r) + "; remove it"
	case r == 0xfffe || r == 0xffff:
		return "holds noncharacter " + runeName(r) + "; remove it"
	case r > 0xffff:
		return "holds a character outside the Basic Multilingual Plane (such as an emoji); remove it"
	}
	return ""
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

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func upperAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

func upperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// printableASCII reports whether s is only ASCII 0x20-0x7E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
