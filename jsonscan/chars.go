package jsonscan

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Class is what the character policy of contract section 1 says about a
// character: Allowed, or why it is refused.
type Class uint8

// The classes of refused characters.
const (
	Allowed          Class = iota
	InvalidUTF8            // a byte that does not start valid UTF-8
	Control                // C0 control (U+0000-U+001F) or DEL (U+007F)
	C1Control              // U+0080-U+009F
	Bidi                   // U+202A-U+202E, U+2066-U+2069
	Surrogate              // U+D800-U+DFFF, only ever written as a \u escape
	Noncharacter           // U+FFFE, U+FFFF
	OutsideBMP             // U+10000 and above (emoji)
	InvalidCodePoint       // above U+10FFFF
)

// String names the class as error texts do ("bidirectional control
// character").
func (c Class) String() string {
	switch c {
	case Allowed:
		return "allowed character"
	case InvalidUTF8:
		return "invalid UTF-8"
	case Control:
		return "control character"
	case C1Control:
		return "C1 control character"
	case Bidi:
		return "bidirectional control character"
	case Surrogate:
		return "unpaired surrogate"
	case Noncharacter:
		return "noncharacter"
	case OutsideBMP:
		return "character outside the Basic Multilingual Plane (such as an emoji)"
	}
	return "invalid code point"
}

// Classify applies the character policy of contract section 1 to the code
// point r. HTAB is a Control like the others: header values allow it and
// JSON strings do not, so FindRefused takes that as a parameter.
func Classify(r rune) Class {
	switch {
	case r < 0x20 || r == 0x7f:
		return Control
	case r < 0x80:
		return Allowed
	case r <= 0x9f:
		return C1Control
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return Bidi
	case r >= 0xd800 && r <= 0xdfff:
		return Surrogate
	case r == 0xfffe || r == 0xffff:
		return Noncharacter
	case r > 0xffff && r <= utf8.MaxRune:
		return OutsideBMP
	case r > utf8.MaxRune:
		return InvalidCodePoint
	}
	return Allowed
}

// classifyUTF8 decodes the non-ASCII character at the start of p and
// applies the policy to it; size is 1 for invalid UTF-8.
func classifyUTF8(r rune, size int) Class {
	if r == utf8.RuneError && size <= 1 {
		return InvalidUTF8
	}
	return Classify(r)
}

// FindRefused returns the byte offset of the first character of s the
// policy refuses, the character (utf8.RuneError for invalid UTF-8) and its
// class; or len(s), 0 and Allowed when there is none. allowTab lets HTAB
// pass, as in header values.
func FindRefused(s string, allowTab bool) (int, rune, Class) {
	i := plainTextRun(s, 0)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\t' && allowTab {
				i = plainTextRun(s, i+1)
				continue
			}
			return i, rune(c), Control
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if cl := classifyUTF8(r, size); cl != Allowed {
			return i, r, cl
		}
		i = plainTextRun(s, i+size)
	}
	return len(s), 0, Allowed
}

// RuneName writes r as error texts name a code point: "U+000A", "U+1F600".
func RuneName(r rune) string {
	s := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	for len(s) < 4 {
		s = "0" + s
	}
	return "U+" + s
}

// Eight bytes at a time (SWAR): lsb and msb are 0x01 and 0x80 in each byte.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZeroByte is non-zero iff some byte of x is zero.
func hasZeroByte(x uint64) uint64 { return (x - lsb) &^ x & msb }

// load64 reads eight bytes of s little-endian; the compiler makes it one
// load.
func load64(b string, i int) uint64 {
	return uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
		uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
}

// plainTextRun returns the index of the first byte at or after i that is
// not printable ASCII (values such as TPP-Signature-Certificate run to
// kilobytes).
func plainTextRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		if m := x&msb | (x-0x20*lsb)&^x&msb | hasZeroByte(x^(0x7f*lsb)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3 // see plainRun
		}
	}
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	return i
}
