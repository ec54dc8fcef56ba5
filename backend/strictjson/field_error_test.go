package strictjson

import (
	"strings"
	"testing"
)

func TestKeyPath(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		key, want string
	}{
		{"street", "$.street"},
		{"_x1", "$._x1"},
		{"1a", "$['1a']"},
		{"", "$['']"},
		{"a b", "$['a b']"},
		{`it's\`, `$['it\'s\\']`},
		{"a\u202eb", `$['a\u202Eb']`},
		{"æ", `$['\u00E6']`},
		{"\U0001F600", `$['\uD83D\uDE00']`},
		{"a\x00", `$['a\u0000']`},
		{"a\xff", `$['a\uFFFD']`},
		{long, "$['" + long[:64] + "...']"},
	}
	for _, tc := range tests {
		if got := keyPath("$", tc.key); got != tc.want {
			t.Errorf("keyPath(%q) = %s, want %s", tc.key, got, tc.want)
		}
	}
}

func TestFieldErrorError(t *testing.T) {
	e := FieldError{Path: "$.a", Rule: "is required"}
	if got := e.Error(); got != "$.a: is required" {
		t.Errorf("Error() = %q", got)
	}
}

func TestRuneName(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want string
	}{{0, "U+0000"}, {0x7f, "U+007F"}, {0x202e, "U+202E"}, {0xfeff, "U+FEFF"}, {0x1f600, "U+1F600"}} {
		if got := runeName(tc.r); got != tc.want {
			t.Errorf("runeName(%#x) = %s, want %s", tc.r, got, tc.want)
		}
	}
}
