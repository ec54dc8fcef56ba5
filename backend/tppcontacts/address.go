package tppcontacts

import (
	"net/mail"
	"strconv"
	"strings"
)

// Bounds of one address (RFC 5321 section 4.5.3.1: a path of 256 octets
// less its angle brackets; a local part of 64).
const (
	// MaxAddressBytes bounds an address.
	MaxAddressBytes = 254
	maxLocalBytes   = 64
	maxLabelBytes   = 63
)

// Rule texts of an address; none quotes the address.
const (
	ruleAddressEmpty  = "must not be empty; send an e-mail address such as ops@tpp.example"
	ruleAddressASCII  = "must be ASCII; write an internationalised domain in its xn-- form"
	ruleAddressPlain  = "must be a plain e-mail address such as ops@tpp.example: no display name, angle brackets, comments, quotes or spaces"
	ruleAddressLocal  = "has a local part (before the @) longer than 64 characters"
	ruleAddressDomain = "must have a domain name of at least two labels of letters, digits and inner hyphens, such as tpp.example (no IP address)"
)

// addressProblem returns why s is not an address the bank registers, or "".
func addressProblem(s string) string {
	switch {
	case s == "":
		return ruleAddressEmpty
	case len(s) > MaxAddressBytes:
		return "is longer than " + strconv.Itoa(MaxAddressBytes) + " characters"
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ruleAddressASCII
		}
	}
	// net/mail parses RFC 5322 address syntax; what it returns equals the
	// input only for a bare addr-spec without quoting or comments.
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return ruleAddressPlain
	}
	at := strings.LastIndexByte(s, '@')
	if at > maxLocalBytes {
		return ruleAddressLocal
	}
	if !validDomain(s[at+1:]) {
		return ruleAddressDomain
	}
	return ""
}

// validDomain reports whether d is a DNS host name of at least two labels,
// each of 1 to 63 ASCII letters, digits and inner hyphens, the last not all
// digits (so that a dotted IPv4 address is not a domain).
func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabelBytes || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	return strings.Trim(tld, "0123456789") != ""
}

// addressKey is what two addresses are compared by: the local part as
// sent (RFC 5321 leaves its case to the receiving host) and the domain in
// lower case.
func addressKey(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	return addr[:at+1] + strings.ToLower(addr[at+1:])
}
