package hygiene

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxPathKeyRunes caps how much of one member name a path shows.
const maxPathKeyRunes = 64

// renderPath writes the path collected while unwinding (innermost first) as
// "$.a['b c'][3]". It runs only after an error.
func (s *jsonScanner) renderPath() string {
	var sb strings.Builder
	sb.WriteByte('$')
	for i := len(s.path) - 1; i >= 0; i-- {
		seg := s.path[i]
		if seg.index >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(seg.index))
			sb.WriteByte(']')
			continue
		}
		writePathKey(&sb, s.b[seg.key.start:seg.key.end], seg.partial)
	}
	return sb.String()
}

// writePathKey writes one member name, given as its raw (still escaped)
// bytes, as ".name" when it is an identifier and as "['...']" otherwise.
// Anything but printable ASCII is written as a \u escape, so a path never
// carries a control, bidi or invalid character into logs or error bodies.
// A partial name (cut before the character at fault) ends in "...".
func writePathKey(sb *strings.Builder, raw []byte, partial bool) {
	runes := make([]rune, 0, len(raw))
	for i := 0; i < len(raw); {
		r, next := decodeForDisplay(raw, i)
		runes = append(runes, r)
		i = next
	}
	truncated := partial
	if len(runes) > maxPathKeyRunes {
		runes, truncated = runes[:maxPathKeyRunes], true
	}
	if isIdentifier(runes) && !truncated {
		sb.WriteByte('.')
		for _, r := range runes {
			sb.WriteRune(r)
		}
		return
	}
	sb.WriteString("['")
	for _, r := range runes {
		switch {
		case r == '\'' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			sb.WriteRune(r)
		case r > 0xffff:
			r1, r2 := surrogates(r)
			writeU(sb, r1)
			writeU(sb, r2)
		default:
			writeU(sb, r)
		}
	}
	if truncated {
		sb.WriteString("...")
	}
	sb.WriteString("']")
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

func writeU(sb *strings.Builder, r rune) {
	const hexDigits = "0123456789ABCDEF"
	sb.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		sb.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

// decodeForDisplay decodes one character of a possibly invalid string
// token: escapes are decoded when well formed, invalid UTF-8 becomes U+FFFD.
func decodeForDisplay(b []byte, i int) (rune, int) {
	if b[i] == '\\' && i+1 < len(b) {
		if b[i+1] == 'u' {
			if r, ok := hex4(b, i+2); ok {
				return r, i + 6
			}
			return utf8.RuneError, i + 2
		}
		return decodeStringRune(b, i)
	}
	r, size := utf8.DecodeRune(b[i:])
	return r, i + size
}

func isIdentifier(runes []rune) bool {
	if len(runes) == 0 {
		return false
	}
	for i, r := range runes {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
