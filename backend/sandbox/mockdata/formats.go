package mockdata

// Formats of the coded text fields, with the rule text a TPP sees when a
// value does not match. None uses regexp: each is one pass over the bytes.

const ruleMaskedPAN = "must be a masked card number: 12 to 19 digits and x, X or *, " +
	"with everything between the first 6 and the last 4 digits masked (such as 1234xxxxxxxx4321)"

// validMaskedPAN reports whether s is a masked card number. A card number
// (ISO/IEC 7812) has 12 to 19 digits in practice; PCI DSS lets at most the
// first six and the last four show, so every position between them must be
// a mask character. That refuses a full, unmasked PAN, which the sandbox
// must never store or echo.
func validMaskedPAN(s string) bool {
	if len(s) < 12 || len(s) > 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		masked := c == 'x' || c == 'X' || c == '*'
		if !masked && (c < '0' || c > '9') {
			return false
		}
		if i >= 6 && i < len(s)-4 && !masked {
			return false
		}
	}
	return true
}

const (
	ruleExchangeRate = "must be a positive decimal number as a string, with '.' as decimal separator and no sign or exponent (such as \"10.4567\")"
	rulePercentage   = "must be a decimal number of at least 0 as a string, with '.' as decimal separator and no sign or exponent (such as \"1.75\")"
)

// validPositiveDecimal reports whether s is a decimal greater than zero.
func validPositiveDecimal(s string) bool {
	if !validDecimal(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= '1' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// validDecimal reports whether s is digits, optionally with one '.' between
// digits: "0", "1.5", "0.0951"; not "1.", ".5", "-1", "1e3" or "1,5".
func validDecimal(s string) bool {
	if s == "" || len(s) > maxDecimalBytes {
		return false
	}
	dot := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && dot < 0:
			dot = i
		default:
			return false
		}
	}
	return dot != 0 && dot != len(s)-1
}

const ruleCustomerNumber = "must be 1 to 35 ASCII letters and digits (the customer's national identity or organisation number, such as 13039319955)"

// validCustomerNumber reports whether s is ASCII letters and digits. The
// customer number is what a PSU types at the sandbox login, so it keeps to
// characters every keyboard and form has.
func validCustomerNumber(s string) bool {
	if s == "" || len(s) > maxIDRunes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

const (
	ruleBBAN = "must be an 11-digit Norwegian account number, without spaces or dots (such as 86011117947)"
	ruleIBAN = "must be an IBAN in electronic form (upper case, no spaces) with valid check digits (such as NO9386011117947)"
)

// mockBBAN reports whether s is 11 digits: the form of a Norwegian account
// number. Mock data takes the contract's example numbers as they are, and
// many of them (09232911044 among them) fail the MOD11 check digit that
// payments demand; their IBANs' mod-97 check digits are kept.
func mockBBAN(s string) bool { return len(s) == 11 && allDigits(s) }
