package hygiene

import (
	"fmt"
	"unicode/utf8"
)

// forbiddenRune reports why r may not appear in a body string or header
// value, or "" when it may. HTAB is not special here: header values allow it
// and JSON strings do not, so callers decide before calling.
func forbiddenRune(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f:
		return "control character"
	case r < 0x80:
		return ""
	case r <= 0x9f:
		return "C1 control character"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "bidirectional control character"
	case r >= 0xd800 && r <= 0xdfff:
		return "unpaired surrogate"
	case r == 0xfffe || r == 0xffff:
		return "noncharacter"
	case r > 0xffff && r <= utf8.MaxRune:
		return "character outside the Basic Multilingual Plane (such as an emoji)"
	case r > utf8.MaxRune:
		return "invalid code point"
	}
	return ""
}

// runeText describes a forbidden rune for an error text, e.g.
// "bidirectional control character U+202E".
func runeText(what string, r rune) string {
	return fmt.Sprintf("%s U+%04X", what, r)
}
