package bankaccount

import (
	"errors"
)

var bbanWeights = [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}

// ValidBBAN reports whether s is an 11-digit Norwegian account number whose
// last digit is the MOD11 check digit of the first ten.
func ValidBBAN(s string) bool {
	if len(s) != 11 || !digits(s) {
		return false
	}
	c, ok := bbanCheck(s[:10])
	return ok && int(s[10]-'0') == c
}

// bbanCheck returns the MOD11 check digit of ten digits; ok is false when
// no check digit exists (remainder 1).
func bbanCheck(ten string) (int, bool) {
	sum := 0
	for i := 0; i < 10; i++ {
		sum += int(ten[i]-'0') * bbanWeights[i]
	}
	r := 11 - sum%11
	switch r {
	case 11:
		return 0, true
	case 10:
		return 0, false
	}
	return r, true
}

// ErrNoCheckDigit is returned when ten digits have no MOD11 check digit.
var ErrNoCheckDigit = errors.New("bankaccount: these ten digits have no MOD11 check digit")

// CompleteBBAN appends the MOD11 check digit to ten digits.
func CompleteBBAN(ten string) (string, error) {
	if len(ten) != 10 || !digits(ten) {
		return "", errors.New("bankaccount: a BBAN prefix is ten digits")
	}
	c, ok := bbanCheck(ten)
	if !ok {
		return "", ErrNoCheckDigit
	}
	return ten + string(rune('0'+c)), nil
}

// ValidIBAN reports whether s (no spaces) has a valid structure and MOD 97
// check digits; a Norwegian IBAN must also hold a valid BBAN.
func ValidIBAN(s string) bool {
	if !ValidIBANCheckDigits(s) {
		return false
	}
	return s[:2] != "NO" || ValidBBAN(s[4:])
}

// ValidIBANCheckDigits reports whether s (no spaces) has a valid structure
// and MOD 97 check digits, a Norwegian one 15 characters, without asking
// a Norwegian BBAN for its MOD11 check digit (sandbox mock data, whose
// example numbers often lack it).
func ValidIBANCheckDigits(s string) bool {
	if len(s) < 15 || len(s) > 34 || !upperAlpha(s[:2]) || !digits(s[2:4]) {
		return false
	}
	for i := 4; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	if s[:2] == "NO" && (len(s) != 15 || !digits(s[4:])) {
		return false
	}
	return mod97(s[4:]+s[:4]) == 1
}

// IBAN returns the IBAN of a BBAN in country cc.
func IBAN(cc, bban string) string {
	check := 98 - mod97(bban+cc+"00")
	return cc + string(rune('0'+check/10)) + string(rune('0'+check%10)) + bban
}

// mod97 is ISO 7064 MOD 97-10 over digits and letters (A=10 … Z=35),
// computed digit by digit without big numbers.
func mod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			n := int(c-'A') + 10
			r = (r*100 + n) % 97
		} else {
			r = (r*10 + int(c-'0')) % 97
		}
	}
	return r
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func upperAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
