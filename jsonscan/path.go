package jsonscan

import (
	"strconv"
	"unicode/utf8"
)

// MaxPathNameRunes caps how much of one member name a path shows.
const MaxPathNameRunes = 64

// AppendName appends the member name (decoded) to the JSONPath dst:
// ".name" when it is an identifier (ASCII letters, digits and '_', not
// starting with a digit) of at most MaxPathNameRunes, "['...']" otherwise.
// In brackets a quote and a backslash are backslash-escaped and anything but
// printable ASCII is written as a \u escape (a surrogate pair past the
// BMP; U+FFFD for invalid UTF-8), so that a path never carries a control,
// bidi or invalid character into logs or error bodies. A name longer than
// MaxPathNameRunes is cut and ends in "...", and so does a partial one (a
// name cut before the character at fault).
func AppendName(dst []byte, name string, partial bool) []byte {
	if !partial && isIdentifier(name) {
		dst = append(dst, '.')
		return append(dst, name...)
	}
	dst = append(dst, "['"...)
	n := 0
	for _, r := range name {
		if n == MaxPathNameRunes {
			partial = true
			break
		}
		n++
		switch {
		case r == '\'' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r >= 0x20 && r < 0x7f:
			dst = append(dst, byte(r))
		case r > 0xffff && r <= utf8.MaxRune:
			r -= 0x10000
			dst = appendU(dst, 0xd800+(r>>10)&0x3ff)
			dst = appendU(dst, 0xdc00+r&0x3ff)
		default:
			dst = appendU(dst, r)
		}
	}
	if partial {
		dst = append(dst, "..."...)
	}
	return append(dst, "']"...)
}

// AppendIndex appends the array index i to the JSONPath dst: "[3]".
func AppendIndex(dst []byte, i int) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(i), 10)
	return append(dst, ']')
}

func isIdentifier(s string) bool {
	if s == "" || len(s) > MaxPathNameRunes {
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

func appendU(dst []byte, r rune) []byte {
	const hexDigits = "0123456789ABCDEF"
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// AppendPath appends the JSONPath of the scanner's position to dst: "$",
// then for each open container the member or element being scanned
// ($.a['b c'][3]). With current false the innermost container is named
// without its member or element, for faults in the container's own syntax
// (a missing ',') rather than in a value. A member name cut by a fault in
// it ends in "...". With maxLen above zero the path is cut with "..."
// where it grows past maxLen bytes.
func (s *Scanner) AppendPath(dst []byte, current bool, maxLen int) []byte {
	start := len(dst)
	dst = append(dst, '$')
	var buf []byte
	for d := 1; d <= s.depth; d++ {
		if d == s.depth && !current {
			break
		}
		if maxLen > 0 && len(dst)-start > maxLen {
			return append(dst, "..."...)
		}
		f := s.frame(d)
		if !f.object {
			if f.count > 0 {
				dst = AppendIndex(dst, f.count-1)
			}
			continue
		}
		if f.nameStart == 0 {
			continue // no member begun
		}
		raw := s.b[f.nameStart:f.nameEnd]
		if f.escaped || !utf8.Valid(raw) {
			buf, _ = Unescape(buf[:0], raw)
			raw = buf
		}
		dst = AppendName(dst, string(raw), f.partial)
	}
	return dst
}
