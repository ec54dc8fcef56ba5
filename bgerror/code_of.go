package bgerror

import "bytes"

// bodyStart is how every body Body makes begins, up to its first code.
var bodyStart = []byte(`{"tppMessages":[{"category":"ERROR","code":"`)

// knownCodes holds every code of this package, as itself.
var knownCodes = func() map[string]string {
	m := make(map[string]string, len(defaultStatus))
	for c := range defaultStatus {
		m[c] = c
	}
	return m
}()

// CodeOf returns the code of the first message of an error body that Body
// made, read from the body's start without parsing it, so that a
// service's answers can be counted by code for the price of a prefix
// comparison. It returns "" when body does not start as Body's bodies do
// or names a code this package does not know: what it returns is always
// one of this package's codes, never bytes of the body.
func CodeOf(body []byte) string {
	rest, ok := bytes.CutPrefix(body, bodyStart)
	if !ok {
		return ""
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	return knownCodes[string(rest[:end])]
}
