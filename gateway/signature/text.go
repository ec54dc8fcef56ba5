package signature

import (
	"fmt"

	"github.com/obgw/obgw/jsonscan"
)

// checkText rejects what must never reach a signing string, a DN or a log
// line after decoding: invalid UTF-8, C0 and C1 control characters, DEL,
// the noncharacters U+FFFE/U+FFFF, bidi embedding and isolate controls
// (which can make a logged keyId read differently from what was sent) and
// characters outside the Basic Multilingual Plane. This is the header
// value policy of contract section 1 (jsonscan.Classify, the one statement
// of it), applied to decoded text.
func checkText(s string) error {
	i, r, c := jsonscan.FindRefused(s, false)
	switch c {
	case jsonscan.Allowed:
		return nil
	case jsonscan.InvalidUTF8:
		return fmt.Errorf("invalid UTF-8 at byte %d", i)
	case jsonscan.Control, jsonscan.C1Control:
		return fmt.Errorf("control character U+%04X at byte %d", r, i)
	case jsonscan.Noncharacter:
		return fmt.Errorf("noncharacter U+%04X at byte %d", r, i)
	case jsonscan.Bidi:
		return fmt.Errorf("bidi control U+%04X at byte %d", r, i)
	}
	return fmt.Errorf("character U+%04X outside the Basic Multilingual Plane at byte %d", r, i)
}
