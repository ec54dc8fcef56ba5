package mockdata

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// textProblem returns why s may not be stored as a text value, or "".
// The characters refused are those of contract section 1: C0 and C1
// controls, DEL, the bidi controls U+202A-U+202E and U+2066-U+2069, the
// noncharacters U+FFFE and U+FFFF, and everything outside the Basic
// Multilingual Plane (emoji). Escaped controls (\n, \t) are refused too:
// no field of these bodies is multi-line. bad marks a string in which the
// decoder replaced invalid UTF-8 or a lone surrogate.
func textProblem(s string, bad bool) string {
	if bad {
		return "is not valid UTF-8 (or holds a lone surrogate escape); send UTF-8 text"
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return "holds control character " + runeName(rune(c)) + "; remove it"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r <= 0x9f:
			return "holds C1 control character " + runeName(r) + "; remove it"
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return "holds bidirectional control character " + runeName(r) + "; remove it"
		case r == 0xfffe || r == 0xffff:
			return "holds noncharacter " + runeName(r) + "; remove it"
		case r > 0xffff:
			return "holds a character outside the Basic Multilingual Plane (such as an emoji); remove it"
		}
		i += size
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
