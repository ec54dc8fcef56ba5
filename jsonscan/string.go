package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// str scans the string token whose opening quote is at start, under the
// scanner's policy and MaxStringBytes. On failure the error's Pos is where
// the string went wrong, so that a caller can show the part before it.
func (s *Scanner) str(start int, k Kind) Kind {
	b := s.b
	i := start + 1
	var escaped, nonASCII bool
	n := 0 // bytes after unescaping
	for {
		var j int
		if s.refuse {
			j = plainRun(b, i)
		} else {
			var high bool
			j, high = looseRun(b, i)
			nonASCII = nonASCII || high
		}
		n += j - i
		i = j
		if i >= len(b) {
			return s.fail(ErrStringEOF, start, i)
		}
		switch c := b[i]; {
		case c == '"':
			if s.lim.MaxStringBytes > 0 && n > s.lim.MaxStringBytes {
				return s.fail(ErrStringLength, start, i)
			}
			// Field by field: a composite literal is built on the stack
			// and copied, and its byte fields stall the copy's wide loads.
			t := &s.tok
			t.Kind, t.Start, t.End, t.Len, t.Escaped, t.NonASCII = k, start, i+1, n, escaped, nonASCII
			return k
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return s.fail(ErrStringEOF, start, i)
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				n++
				i += 2
				continue
			case 'b', 'f', 'n', 'r', 't':
				if s.refuse {
					return s.failChar(start, i, simpleEscape(e), Control, true)
				}
				n++
				i += 2
				continue
			case 'u':
			default:
				return s.fail(ErrEscape, start, i)
			}
			r, width := escapedRune(b, i)
			if width == 0 {
				return s.fail(ErrUEscape, start, i)
			}
			if s.refuse {
				if cl := Classify(r); cl != Allowed {
					return s.failChar(start, i, r, cl, true)
				}
			}
			if r >= 0xd800 && r <= 0xdfff {
				r = utf8.RuneError // as it decodes
			}
			n += utf8.RuneLen(r)
			i += width
		case c < 0x20:
			s.fail(ErrRawControl, start, i)
			s.err.Rune = rune(c)
			return Invalid
		case c < utf8.RuneSelf: // DEL, with Refuse
			return s.failChar(start, i, rune(c), Control, false)
		default: // non-ASCII, with Refuse
			nonASCII = true
			r, size := utf8.DecodeRune(b[i:])
			if cl := classifyUTF8(r, size); cl != Allowed {
				return s.failChar(start, i, r, cl, false)
			}
			n += size
			i += size
		}
	}
}

func (s *Scanner) failChar(start, pos int, r rune, cl Class, escaped bool) Kind {
	s.fail(ErrCharacter, start, pos)
	s.err.Rune, s.err.Class, s.err.Escaped = r, cl, escaped
	return Invalid
}

// simpleEscape returns the control character of \b, \f, \n, \r or \t.
func simpleEscape(e byte) rune {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}

// hex4 decodes the four hex digits at b[i:i+4], or returns ok=false.
func hex4(b []byte, i int) (r rune, ok bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// escapedRune decodes the \u escape at b[i:], with the low surrogate
// escape that may follow a high one: it returns the code point (a lone
// surrogate as itself) and the bytes used, 6 or 12, or 0 when the escape
// is malformed.
func escapedRune(b []byte, i int) (rune, int) {
	r, ok := hex4(b, i+2)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) && i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
		if lo, ok := hex4(b, i+8); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return pair, 12
			}
		}
	}
	return r, 6
}

// NextRune decodes the character at raw[i:] of a string or name that a
// Scanner accepted (raw is the text between the quotes) as encoding/json
// decodes it: escapes resolved, a surrogate pair as one code point, a lone
// surrogate and each byte of invalid UTF-8 as utf8.RuneError. It returns
// the character and where the next one starts.
func NextRune(raw []byte, i int) (rune, int) {
	c := raw[i]
	if c < utf8.RuneSelf {
		if c != '\\' {
			return rune(c), i + 1
		}
		if i+1 >= len(raw) {
			return utf8.RuneError, i + 1 // not from a Scanner
		}
		switch e := raw[i+1]; e {
		case 'u':
			r, width := escapedRune(raw, i)
			if width == 0 {
				return utf8.RuneError, i + 2 // not from a Scanner; never cut an escape short
			}
			if r >= 0xd800 && r <= 0xdfff {
				r = utf8.RuneError
			}
			return r, i + width
		case 'b', 'f', 'n', 'r', 't':
			return simpleEscape(e), i + 2
		}
		return rune(raw[i+1]), i + 2 // '"', '\\', '/'
	}
	r, size := utf8.DecodeRune(raw[i:])
	return r, i + size
}

// Unescape appends the value of the string or name raw (the text between
// the quotes, as a Scanner accepted it) to dst, decoding as encoding/json
// does (see NextRune). replaced reports that invalid UTF-8 or a lone
// surrogate escape became U+FFFD.
func Unescape(dst, raw []byte) (out []byte, replaced bool) {
	for len(raw) > 0 {
		plain := bytes.IndexByte(raw, '\\')
		if plain < 0 {
			plain = len(raw)
		}
		if run := raw[:plain]; utf8.Valid(run) {
			dst = append(dst, run...)
		} else {
			for k := 0; k < len(run); {
				r, size := utf8.DecodeRune(run[k:])
				replaced = replaced || r == utf8.RuneError && size == 1
				dst = utf8.AppendRune(dst, r)
				k += size
			}
		}
		if plain == len(raw) {
			break
		}
		r, next := NextRune(raw, plain)
		if r == utf8.RuneError && raw[plain+1] == 'u' {
			if v, _ := hex4(raw, plain+2); v != utf8.RuneError {
				replaced = true
			}
		}
		dst = utf8.AppendRune(dst, r)
		raw = raw[next:]
	}
	return dst, replaced
}

// plainStringByte marks the bytes a string holds as they are under
// Refuse: printable ASCII except '"' and '\\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns the index of the first byte at or after i that is not a
// plain string byte under Refuse, testing eight bytes at a time: each test
// flags the high bit of the bytes it matches, exactly for the lowest one
// (a borrow can only flag bytes above a true match), so the lowest flag
// is the byte sought.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m := x&msb | (x-0x20*lsb)&^x&msb | hasZeroByte(x^('"'*lsb)) | hasZeroByte(x^('\\'*lsb)) | hasZeroByte(x^(0x7f*lsb))
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && plainStringByte[b[i]] {
		i++
	}
	return i
}

// looseRun returns the index of the first byte at or after i that ends a
// run of string bytes under Permissive ('"', '\\' or a C0 control), and
// whether the run holds a byte from 0x80. It tests eight bytes at a time
// as plainRun does; bytes from 0x80 never match.
func looseRun(b []byte, i int) (int, bool) {
	var high uint64
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m := (x-0x20*lsb)&^x&msb | hasZeroByte(x^('"'*lsb)) | hasZeroByte(x^('\\'*lsb))
		if m != 0 {
			n := bits.TrailingZeros64(m) >> 3
			high |= x & (1<<(8*n) - 1)
			return i + n, high&msb != 0
		}
		high |= x
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < 0x20 || c == '"' || c == '\\' {
			break
		}
		high |= uint64(c)
	}
	return i, high&msb != 0
}
