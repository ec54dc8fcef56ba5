package hygiene

import (
	"fmt"

	"github.com/obgw/obgw/jsonscan"
)

// CheckHeaderValue checks one header value: valid UTF-8, no control
// characters except HTAB, none of the code points the contract forbids
// (C1 controls, U+FFFE/U+FFFF, bidi controls, characters outside the Basic
// Multilingual Plane). The error names the header. The policy is
// jsonscan's, the one for bodies and header values alike.
func CheckHeaderValue(name, value string) error {
	i, r, c := jsonscan.FindRefused(value, true)
	switch c {
	case jsonscan.Allowed:
		return nil
	case jsonscan.InvalidUTF8:
		return &Error{Path: name, Text: fmt.Sprintf("header value has invalid UTF-8 at byte %d; send UTF-8 text", i)}
	}
	return &Error{Path: name, Text: fmt.Sprintf("header value contains a %s at byte %d; remove it", runeText(c.String(), r), i)}
}
