package hygiene

import (
	"fmt"
	"unicode/utf8"
)

// CheckHeaderValue checks one header value: valid UTF-8, no control
// characters except HTAB, none of the code points the contract forbids
// (C1 controls, U+FFFE/U+FFFF, bidi controls, characters outside the Basic
// Multilingual Plane). The error names the header.
func CheckHeaderValue(name, value string) error {
	i := plainHeaderRun(value, 0)
	for i < len(value) {
		c := value[i]
		switch {
		case c == '\t':
			i++
		case c < utf8.RuneSelf: // C0 control or DEL
			return &Error{Path: name, Text: fmt.Sprintf("header value contains a %s at byte %d; remove it", runeText("control character", rune(c)), i)}
		default:
			r, size := utf8.DecodeRuneInString(value[i:])
			if r == utf8.RuneError && size == 1 {
				return &Error{Path: name, Text: fmt.Sprintf("header value has invalid UTF-8 at byte %d; send UTF-8 text", i)}
			}
			if why := forbiddenRune(r); why != "" {
				return &Error{Path: name, Text: fmt.Sprintf("header value contains a %s at byte %d; remove it", runeText(why, r), i)}
			}
			i += size
		}
		i = plainHeaderRun(value, i)
	}
	return nil
}

// plainHeaderRun returns the index of the first byte at or after i that is
// not printable ASCII, testing eight bytes at a time (values such as
// TPP-Signature-Certificate run to kilobytes).
func plainHeaderRun(v string, i int) int {
	for ; i+8 <= len(v); i += 8 {
		x := uint64(v[i]) | uint64(v[i+1])<<8 | uint64(v[i+2])<<16 | uint64(v[i+3])<<24 |
			uint64(v[i+4])<<32 | uint64(v[i+5])<<40 | uint64(v[i+6])<<48 | uint64(v[i+7])<<56
		if x&msb|(x-0x20*lsb)&^x&msb|hasZeroByte(x^(0x7f*lsb)) != 0 {
			break
		}
	}
	for i < len(v) && v[i] >= 0x20 && v[i] < 0x7f {
		i++
	}
	return i
}
