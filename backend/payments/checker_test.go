package payments

import (
	"strings"
	"testing"
)

func TestValidBIC(t *testing.T) {
	for _, tc := range []struct {
		bic  string
		want bool
	}{
		{"DNBANOKK", true}, {"DNBANOKKXXX", true}, {"NWBKGB2L", true}, {"DEUTDEFF500", true},
		{"DNBANOK", false}, {"DNBANOKKX", false}, {"DNBANOKKXXXX", false}, {"dnbanokk", false},
		{"DNB1NOKK", false}, {"DNBAXXKK", false}, {"DNBANOK_", false},
	} {
		if got := validBIC(tc.bic); got != tc.want {
			t.Errorf("validBIC(%q) = %v", tc.bic, got)
		}
	}
}

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		s, cur string
		want   int64
		rule   string
	}{
		{"1", "NOK", 100, ""}, {"1.5", "NOK", 150, ""}, {"0.01", "NOK", 1, ""}, {"150", "JPY", 150, ""},
		{"1.500", "BHD", 1500, ""}, {"999999999999", "JPY", 999999999999, ""},
		{"1000000000000", "JPY", 0, "must be at most 999999999999"},
		{"0000000000001000.00", "NOK", 100000, ""},
		{"0", "NOK", 0, ruleAmountZero}, {"0.00", "NOK", 0, ruleAmountZero}, {"-1", "NOK", 0, ruleAmountZero},
		{"-", "NOK", 0, ruleAmountFormat}, {"", "NOK", 0, ruleAmountFormat}, {".5", "NOK", 0, ruleAmountFormat},
		{"1.2.3", "NOK", 0, ruleAmountFormat}, {" 1", "NOK", 0, ruleAmountFormat}, {"١", "NOK", 0, ruleAmountFormat},
		{"1.123", "NOK", 0, "more than 2 decimals"}, {"1.0", "JPY", 0, "JPY has no decimals"},
	} {
		got, rule := parseAmount(tc.s, tc.cur)
		if got != tc.want || (tc.rule == "") != (rule == "") || !strings.Contains(rule, tc.rule) {
			t.Errorf("parseAmount(%q, %s) = %d, %q; want %d, %q", tc.s, tc.cur, got, rule, tc.want, tc.rule)
		}
	}
}
