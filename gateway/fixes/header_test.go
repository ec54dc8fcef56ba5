package fixes

import (
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	long := strings.Repeat("x", MaxHeaderBytes)
	tests := []struct {
		name   string
		values []string
		want   []string
	}{
		{name: "no header", values: nil, want: nil},
		{name: "empty value", values: []string{""}, want: nil},
		{name: "one", values: []string{"longer-names"}, want: []string{LongerNames}},
		{name: "several sorted", values: []string{"longer-names,amount-as-string"}, want: []string{AmountAsString, LongerNames}},
		{name: "whitespace around values", values: []string{" \tlonger-names , cash-account-type-iso\t"}, want: []string{CashAccountTypeISO, LongerNames}},
		{name: "case-insensitive", values: []string{"LONGER-NAMES, Amount-As-String"}, want: []string{AmountAsString, LongerNames}},
		{name: "duplicates collapse", values: []string{"longer-names, longer-names", "Longer-Names"}, want: []string{LongerNames}},
		{name: "unknown ignored", values: []string{"shorter-names, longer-names, amount-as-number"}, want: []string{LongerNames}},
		{name: "empty elements", values: []string{",,longer-names,,", " , "}, want: []string{LongerNames}},
		{name: "several lines", values: []string{"longer-names", "cardaccount-switch-originalamount-and-transactionamount"}, want: []string{CardAccountSwitchAmounts, LongerNames}},
		{name: "inner whitespace is not trimmed", values: []string{"longer- names"}, want: nil},
		{name: "quoted is not a token", values: []string{`"longer-names"`}, want: nil},
		{name: "prefix is not a match", values: []string{"longer-names-v2, longer"}, want: nil},
		{name: "parameters are not stripped", values: []string{"longer-names;q=1"}, want: nil},
		{name: "other whitespace is not OWS", values: []string{"\nlonger-names"}, want: nil},
		{name: "non-ASCII fold is not a match", values: []string{"longer-nameſ"}, want: nil}, // ſ folds to s in Unicode
		{name: "CR is not a hyphen", values: []string{"longer\rnames"}, want: nil},
		{name: "32 values read", values: []string{strings.Repeat("x,", 31) + "longer-names"}, want: []string{LongerNames}},
		{name: "33rd value ignored", values: []string{strings.Repeat("x,", 32) + "longer-names"}, want: nil},
		{name: "empty elements do not count", values: []string{strings.Repeat(",", 100) + strings.Repeat("x,", 31) + "longer-names"}, want: []string{LongerNames}},
		{name: "values across lines count", values: []string{strings.Repeat("x,", 16), strings.Repeat("x,", 16), "longer-names"}, want: nil},
		{name: "within 1 KiB", values: []string{long[:MaxHeaderBytes-len("longer-names")-2] + ",longer-names"}, want: []string{LongerNames}},
		{name: "cut by 1 KiB is ignored whole", values: []string{long[:MaxHeaderBytes-len("longer-names")-1] + ",longer-names"}, want: nil},
		{name: "beyond 1 KiB on a later line", values: []string{long, "longer-names"}, want: nil},
		{name: "earlier values kept when the bound hits", values: []string{"longer-names", long}, want: []string{LongerNames}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseHeader(tt.values)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || (got == nil) != (tt.want == nil) {
				t.Fatalf("ParseHeader(%.60q) = %q, want %q", tt.values, got, tt.want)
			}
		})
	}
}

func TestParseHeaderReturnsCanonicalStrings(t *testing.T) {
	// The result is the package's constants, not substrings of the header,
	// so it does not keep a large header alive.
	got := ParseHeader([]string{"LONGER-NAMES"})
	if len(got) != 1 || got[0] != LongerNames {
		t.Fatalf("ParseHeader = %q", got)
	}
}
