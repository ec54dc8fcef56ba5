package hygiene

import "github.com/obgw/obgw/jsonscan"

// runeText describes a refused character for an error text, e.g.
// "bidirectional control character U+202E". The policy itself is
// jsonscan.Classify, the one statement of contract section 1's.
func runeText(what string, r rune) string {
	return what + " " + jsonscan.RuneName(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
