package signature

import (
	"fmt"
	"unicode/utf8"
)

// checkText rejects what must never reach a signing string, a DN or a log
// line after decoding: invalid UTF-8, C0 and C1 control characters, DEL,
// the noncharacters U+FFFE/U+FFFF, bidi embedding and isolate controls
// (which can make a logged keyId read differently from what was sent) and
// characters outside the Basic Multilingual Plane. This is the header
// value policy of contract section 1, applied to decoded text.
func checkText(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return fmt.Errorf("control character U+%04X at byte %d", c, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("invalid UTF-8 at byte %d", i)
		case r >= 0x80 && r <= 0x9f:
			return fmt.Errorf("control character U+%04X at byte %d", r, i)
		case r == 0xfffe || r == 0xffff:
			return fmt.Errorf("noncharacter U+%04X at byte %d", r, i)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Errorf("bidi control U+%04X at byte %d", r, i)
		case r > 0xffff:
			return fmt.Errorf("character U+%04X outside the Basic Multilingual Plane at byte %d", r, i)
		}
		i += size
	}
	return nil
}
