package mockdata

import (
	"strings"
	"testing"
)

func TestDecimalFormats(t *testing.T) {
	tests := []struct {
		in                string
		decimal, positive bool
	}{
		{"0", true, false},
		{"0.000", true, false},
		{"1", true, true},
		{"0.0951", true, true},
		{"10.4567", true, true},
		{"007.5", true, true},
		{"123456789012345678901234", true, true},
		{"1234567890123456789012345", false, false},
		{"", false, false},
		{".5", false, false},
		{"5.", false, false},
		{"1.2.3", false, false},
		{"-1", false, false},
		{"+1", false, false},
		{"1e3", false, false},
		{"1,5", false, false},
		{" 1", false, false},
		{"½", false, false},
	}
	for _, tc := range tests {
		if got := validDecimal(tc.in); got != tc.decimal {
			t.Errorf("validDecimal(%q) = %v, want %v", tc.in, got, tc.decimal)
		}
		if got := validPositiveDecimal(tc.in); got != tc.positive {
			t.Errorf("validPositiveDecimal(%q) = %v, want %v", tc.in, got, tc.positive)
		}
	}
}

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
		{long, "$['" + long[:64] + "...']"},
	}
	for _, tc := range tests {
		if got := keyPath("$", tc.key); got != tc.want {
			t.Errorf("keyPath(%q) = %s, want %s", tc.key, got, tc.want)
		}
	}
}

func TestTextProblem(t *testing.T) {
	tests := []struct {
		in   string
		bad  bool
		want string // fragment, "" when the text is fine
	}{
		{"Blåbær AS, Oslo – 10 % off", false, ""},
		{"\u00a0non-breaking space", false, ""},
		{"\ufeffBOM inside", false, ""},
		{"a\x00", false, "control character U+0000"},
		{"a\x1f", false, "control character U+001F"},
		{"a\x7f", false, "control character U+007F"},
		{"a\u009f", false, "C1 control character U+009F"},
		{"a\u2066", false, "bidirectional control character U+2066"},
		{"a\ufffe", false, "noncharacter U+FFFE"},
		{"\U0001F600", false, "outside the Basic Multilingual Plane"},
		{"a\ufffdb", true, "not valid UTF-8"},
	}
	for _, tc := range tests {
		got := textProblem(tc.in, tc.bad)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("textProblem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
