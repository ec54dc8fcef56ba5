package fixes

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends the value of the JSON string content raw (between the
// quotes, already checked by rewriter.str) to dst, decoding escapes as
// encoding/json does: a \u surrogate pair is one code point, a lone
// surrogate is U+FFFD. Raw bytes are copied as they are.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'u':
			r, width := escapedRune(raw[i:])
			dst = utf8.AppendRune(dst, r)
			i += width
			continue
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default: // '"', '\\', '/'
			c = raw[i+1]
		}
		dst = append(dst, c)
		i += 2
	}
	return dst
}

// escapedRune decodes the \u escape at the start of raw, taking a following
// low surrogate escape with a high surrogate, and returns the code point and
// the bytes used (6 or 12).
func escapedRune(raw []byte) (rune, int) {
	r := hex4(raw[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
		if r2 := hex4(raw[8:12]); r2 >= 0 {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
	}
	return utf8.RuneError, 6
}

// prefixLength returns the length in bytes of the first n characters (code
// points, as encoding/json decodes them) of the JSON string content raw,
// or len(raw) when raw has n characters or fewer. It never cuts an escape
// or a UTF-8 sequence.
func prefixLength(raw []byte, n int) int {
	if len(raw) <= n {
		return len(raw)
	}
	i := 0
	for ; n > 0 && i < len(raw); n-- {
		switch c := raw[i]; {
		case c == '\\' && raw[i+1] == 'u':
			_, width := escapedRune(raw[i:])
			i += width
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			_, width := utf8.DecodeRune(raw[i:])
			i += width
		}
	}
	return i
}
