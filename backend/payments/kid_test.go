package payments

import (
	"strings"
	"testing"
)

func TestValidKID(t *testing.T) {
	for _, tc := range []struct {
		kid  string
		want bool
		why  string
	}{
		{"79927398713", true, "MOD10 (the classic Luhn example)"},
		{"79927398710", false, "MOD10 and MOD11 both wrong"},
		{"86011117947", true, "MOD11 (weights 2..7 from the right; the Norwegian account number is one)"},
		{"86011117948", false, "MOD11 digit off by one, not MOD10 either"},
		{"023-", true, "MOD11 remainder 1: '-' as check character"},
		{"0230", false, "MOD11 remainder 1 has no check digit 0, and MOD10 of 023 is 2"},
		{"0232", true, "same digits with their MOD10 check digit"},
		{"123-", false, "'-' where MOD11 gives a digit"},
		{"00", true, "shortest: 0 checks 0 under both"},
		{"0", false, "one digit has no payload"},
		{"", false, "empty"},
		{"1234567890123456789012340", true, "25 digits, MOD10"},
		{"1234567890123456789012341", true, "25 digits, MOD11"},
		{"1234567890123456789012342", false, "25 digits, neither"},
		{"12345678901234567890123455", false, "26 digits"},
		{"1234 5678", false, "space"},
		{"-0", false, "'-' not last"},
		{"12-4", false, "'-' inside"},
		{"１２", false, "full-width digits"},
		{"12a4", false, "letter"},
	} {
		if got := ValidKID(tc.kid); got != tc.want {
			t.Errorf("ValidKID(%q) = %v, want %v: %s", tc.kid, got, tc.want, tc.why)
		}
	}
}

// referenceKID is an independent, slow check of a KID, written from the
// definitions with explicit weight tables, for the fuzz target to compare
// ValidKID with.
func referenceKID(s string) bool {
	if len(s) < 2 || len(s) > 25 {
		return false
	}
	payload, check := s[:len(s)-1], s[len(s)-1:]
	for _, c := range payload {
		if !strings.ContainsRune("0123456789", c) {
			return false
		}
	}
	// MOD10: weights 2,1,2,1... from the right of the payload, digit sums.
	luhn := 0
	for i := 0; i < len(payload); i++ {
		v := int(payload[len(payload)-1-i]-'0') * []int{2, 1}[i%2]
		luhn += v/10 + v%10
	}
	mod10 := (10 - luhn%10) % 10
	// MOD11: weights 2..7 repeating from the right of the payload.
	sum := 0
	for i := 0; i < len(payload); i++ {
		sum += int(payload[len(payload)-1-i]-'0') * []int{2, 3, 4, 5, 6, 7}[i%6]
	}
	mod11 := "0123456789-"[(11-sum%11)%11 : (11-sum%11)%11+1]
	return check == string(rune('0'+mod10)) || check == mod11
}

func TestReferenceKIDAgrees(t *testing.T) {
	for _, s := range []string{"79927398713", "86011117947", "023-", "0230", "00", "1234567890123456789012340", "1234567890123456789012341", "12a4"} {
		if ValidKID(s) != referenceKID(s) {
			t.Errorf("%q: ValidKID %v, reference %v", s, ValidKID(s), referenceKID(s))
		}
	}
}

func TestValidCreditorReference(t *testing.T) {
	for _, tc := range []struct {
		ref  string
		want bool
	}{
		{"RF18539007547034", true}, // ISO 11649's example
		{"RF18000000000539007547034", true},
		{"RF71A", false},
		{"RF19539007547034", false},
		{"RF18 5390 0754 7034", false},
		{"rf18539007547034", false},
		{"RF1", false},
		{"RF18539007547034000000000", false}, // 26 characters
	} {
		if got := validCreditorReference(tc.ref); got != tc.want {
			t.Errorf("validCreditorReference(%q) = %v, want %v", tc.ref, got, tc.want)
		}
	}
}
