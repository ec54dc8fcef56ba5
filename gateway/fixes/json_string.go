package fixes

import "github.com/obgw/obgw/jsonscan"

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
		_, i = jsonscan.NextRune(raw, i)
	}
	return i
}
