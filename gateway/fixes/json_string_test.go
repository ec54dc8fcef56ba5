package fixes

import (
	"strings"
	"testing"
)

func TestPrefixLength(t *testing.T) {
	tests := []struct {
		raw  string
		n    int
		want int
	}{
		{"abc", 5, 3},
		{"abcdef", 3, 3},
		{"øøøø", 2, 4},
		{`\n\n\n`, 2, 4},
		{`\u00f8\u00f8`, 1, 6},
		{`\ud83d\udcb3x`, 1, 12},
		{`\ud83dx`, 1, 6},
		{"\xff\xfeabc", 2, 2},
		{"💳💳", 1, 4},
	}
	for _, tt := range tests {
		if got := prefixLength([]byte(tt.raw), tt.n); got != tt.want {
			t.Errorf("prefixLength(%q, %d) = %d, want %d", tt.raw, tt.n, got, tt.want)
		}
	}
}

func TestLegacyCashAccountType(t *testing.T) {
	for code, name := range referenceCashAccountTypes {
		if got := legacyCashAccountType([]byte(code)); got != `"`+name+`"` {
			t.Errorf("legacyCashAccountType(%q) = %s, want %q", code, got, name)
		}
		if got := legacyCashAccountType([]byte(strings.ToLower(code))); got != "" {
			t.Errorf("legacyCashAccountType(%q) = %s, want none", strings.ToLower(code), got)
		}
	}
	for _, code := range []string{"", "MGLD", "NREX", "CACC ", "CURRENT", "SAVINGS"} {
		if got := legacyCashAccountType([]byte(code)); got != "" {
			t.Errorf("legacyCashAccountType(%q) = %s, want none", code, got)
		}
	}
}
