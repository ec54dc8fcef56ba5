package payments

// ValidKID reports whether s is a valid Norwegian KID (kundeidentifikasjon,
// the payment reference of Norwegian giros): 2 to 25 characters, all
// digits but the last, which is the check character of the digits before
// it under MOD10 or MOD11. Either algorithm is accepted, since the payee
// chooses one with its bank and a payment does not say which.
//
//   - MOD10 is the Luhn algorithm: from the right, the check digit and
//     then every other digit as is, the digits between doubled (with the
//     digits of the product added), summing to a multiple of 10.
//   - MOD11 weighs the digits before the check digit 2, 3, 4, 5, 6, 7, 2,
//     3, ... from the right; the check digit is 11 minus the weighted sum
//     modulo 11, and 0 when that is 11. When it is 10 (remainder 1) there
//     is no check digit, and Nets' KID specification writes '-' instead:
//     ValidKID accepts '-' as the last character exactly then, so that
//     such KIDs, printed on real giros, stay payable.
func ValidKID(s string) bool {
	n := len(s)
	if n < 2 || n > 25 || !allDigits(s[:n-1]) {
		return false
	}
	last := s[n-1]
	if last == '-' {
		return mod11Check(s[:n-1]) == 10
	}
	if last < '0' || last > '9' {
		return false
	}
	d := int(last - '0')
	return mod10Check(s[:n-1]) == d || mod11Check(s[:n-1]) == d
}

// mod10Check returns the Luhn check digit of digits.
func mod10Check(digits string) int {
	sum := 0
	double := true // the digit next to the check digit is doubled
	for i := len(digits) - 1; i >= 0; i-- {
		v := int(digits[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return (10 - sum%10) % 10
}

// mod11Check returns the MOD11 check value of digits: 0 to 9, or 10 when
// no check digit exists.
func mod11Check(digits string) int {
	sum, w := 0, 2
	for i := len(digits) - 1; i >= 0; i-- {
		sum += int(digits[i]-'0') * w
		if w++; w > 7 {
			w = 2
		}
	}
	return (11 - sum%11) % 11
}

// validCreditorReference reports whether s is an ISO 11649 structured
// creditor reference ("RF" references of SEPA payments): RF, two check
// digits and 1 to 21 letters and digits, with the ISO 7064 MOD 97-10 check
// of IBANs. Letters count in either case, as the standard allows.
func validCreditorReference(s string) bool {
	if len(s) < 5 || len(s) > 25 || s[0] != 'R' || s[1] != 'F' || !allDigits(s[2:4]) {
		return false
	}
	rem := 0
	// The reference part, then "RF" and the check digits, letters as 10 to 35.
	for _, part := range [...]string{s[4:], s[:4]} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			switch {
			case c >= '0' && c <= '9':
				rem = (rem*10 + int(c-'0')) % 97
			case c >= 'A' && c <= 'Z':
				rem = (rem*100 + int(c-'A') + 10) % 97
			case c >= 'a' && c <= 'z':
				rem = (rem*100 + int(c-'a') + 10) % 97
			default:
				return false
			}
		}
	}
	return rem == 1
}
