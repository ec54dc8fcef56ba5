package strictjson

import (
	"strings"
	"testing"
)

func TestTextProblem(t *testing.T) {
	tests := []struct {
		in       string
		replaced bool
		want     string // fragment, "" when the text is fine
	}{
		{"Blåbær AS, Oslo – 10 % off", false, ""},
		{"\u00a0non-breaking space", false, ""},
		{"\ufeffBOM inside", false, ""},
		{"\ufffd as sent", false, ""},
		{"a\x00", false, "control character U+0000"},
		{"a\x1f", false, "control character U+001F"},
		{"a\x7f", false, "control character U+007F"},
		{"a\u0080", false, "C1 control character U+0080"},
		{"a\u009f", false, "C1 control character U+009F"},
		{"a\u202a", false, "bidirectional control character U+202A"},
		{"a\u2066", false, "bidirectional control character U+2066"},
		{"a\ufffe", false, "noncharacter U+FFFE"},
		{"\U0001F600", false, "outside the Basic Multilingual Plane"},
		{"a\ufffdb", true, "not valid UTF-8"},
	}
	for _, tc := range tests {
		got := textProblem(tc.in, tc.replaced)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("textProblem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLengthProblem(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want bool
	}{
		{"abc", 3, false}, {"abcd", 3, true}, {"æøå", 3, false}, {"æøåa", 3, true}, {"", 0, false},
	} {
		if got := lengthProblem(tc.s, tc.max) != ""; got != tc.want {
			t.Errorf("lengthProblem(%q, %d) = %v, want %v", tc.s, tc.max, got, tc.want)
		}
	}
}
