package jsonscan

import (
	"encoding/json"
	"testing"
)

// TestUnescapeMatchesEncodingJSON (moved from gateway/fixes with the
// unescaping) compares Unescape with encoding/json on escapes, surrogate
// pairs and lone surrogates.
func TestUnescapeMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		``, `plain`, `\"\\\/\b\f\n\r\t`, `\u0041\u00f8\u20ac`, `\ud83d\udcb3`, `\ud83d`, `\ud83dx`, `\udcb3\ud83d`,
		`\ud83d\u0041`, `\ud83d\ud83d\udcb3`, `ø€💳`, `a\u0000b`, `\uD83D\uDCB3`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("test string %q: %v", raw, err)
		}
		if got, _ := Unescape(nil, []byte(raw)); string(got) != want {
			t.Errorf("Unescape(%q) = %q, want %q", raw, got, want)
		}
	}
}
