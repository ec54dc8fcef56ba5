package signature

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxDNLen bounds a DN string; real issuer DNs are a few hundred bytes.
	maxDNLen = 4096
	// maxDNAttributes bounds a DN, and lets Equal track matched attributes
	// in one uint64.
	maxDNAttributes = 64
)

// AttributeTypeAndValue is one attribute of a distinguished name.
type AttributeTypeAndValue struct {
	// Type is the attribute type. Aliases (S and ST, E and emailAddress,
	// organizationIdentifier and 2.5.4.97) resolve to the same OID.
	Type asn1.ObjectIdentifier
	// Value is the attribute value after unescaping, percent-decoding and
	// BER decoding, with surrounding spaces removed.
	Value string
}

// DN is a distinguished name as a flat list of attributes. RDN order and
// grouping are not kept, because DNs are compared as multisets: TPP
// clients write the issuer in RFC 2253 order, in certificate order, or in
// their own order (CN, O, OU, L, S, C), and Go's pkix.Name.String reorders
// attributes too.
type DN []AttributeTypeAndValue

// ParseDN parses a distinguished name written as in RFC 4514 and RFC 2253,
// tolerating the variants TPP clients send:
//   - the whole string percent-encoded (decoded first when every '%' starts
//     a valid %XX escape; otherwise '%' is taken literally);
//   - spaces around '=', ',' and '+', and ';' as a separator;
//   - attribute names in any case, with the aliases of attributeNames, as
//     dotted OIDs or as "OID." followed by a dotted OID;
//   - values escaped as in RFC 4514 (\, or \2C), quoted as in RFC 1779,
//     or given as '#' and the hex of their BER encoding, which is how
//     Go's pkix.Name.String prints organizationIdentifier;
//   - unescaped ',', '+' or ';' inside a value when what follows does not
//     look like "type=", as in "O=Bank, Inc.,C=NO".
//
// The result is a consistency check against a certificate the signature
// is then verified with, so tolerance here cannot admit a forged request.
func ParseDN(s string) (DN, error) {
	if s == "" {
		return nil, errors.New("issuer DN is empty; write it as CN=<name>,O=<organisation>,C=<country>")
	}
	if len(s) > maxDNLen {
		return nil, fmt.Errorf("issuer DN is %d bytes, more than the %d allowed", len(s), maxDNLen)
	}
	if strings.IndexByte(s, '%') >= 0 {
		if d, ok := percentDecode(s); ok {
			s = d
		}
	}
	if err := checkText(s); err != nil {
		return nil, fmt.Errorf("issuer DN has %w", err)
	}
	n := strings.Count(s, "=")
	if n == 0 {
		return nil, errors.New("issuer DN has no attribute; write it as CN=<name>,O=<organisation>,C=<country>")
	}
	dn := make(DN, 0, min(n, maxDNAttributes))
	for i := 0; ; {
		i = skipSpaces(s, i)
		start := i
		for i < len(s) && isAttributeTypeByte(s[i]) {
			i++
		}
		typ := s[start:i]
		if typ == "" {
			return nil, fmt.Errorf("issuer DN: expected an attribute type at byte %d", start)
		}
		oid, ok := attributeType(typ)
		if !ok {
			return nil, fmt.Errorf("issuer DN: unknown attribute type %q; use an RFC 4514 name or a dotted OID", clip(typ))
		}
		i = skipSpaces(s, i)
		if i == len(s) || s[i] != '=' {
			return nil, fmt.Errorf("issuer DN: attribute type %s must be followed by =", clip(typ))
		}
		value, next, err := parseDNValue(s, skipSpaces(s, i+1))
		if err != nil {
			return nil, fmt.Errorf("issuer DN: value of %s %w", clip(typ), err)
		}
		if len(dn) == maxDNAttributes {
			return nil, fmt.Errorf("issuer DN has more than %d attributes", maxDNAttributes)
		}
		dn = append(dn, AttributeTypeAndValue{Type: oid, Value: value})
		if next == len(s) {
			return dn, nil
		}
		i = next + 1 // skip the separator
	}
}

// parseDNValue parses the value starting at s[i] and returns it with the
// index of the separator that ends it, or len(s).
func parseDNValue(s string, i int) (string, int, error) {
	if i < len(s) && s[i] == '#' {
		if v, next, ok, err := parseHexValue(s, i); ok || err != nil {
			return v, next, err
		}
	}
	if i < len(s) && s[i] == '"' {
		return parseQuotedValue(s, i)
	}

	// Find the end, and whether there is anything to unescape.
	escaped := false
	end := i
	for ; end < len(s); end++ {
		c := s[end]
		if c == '\\' {
			if end+1 == len(s) {
				return "", 0, errors.New("ends with a lone backslash")
			}
			escaped = true
			end++
			continue
		}
		if isDNSeparator(c) && startsAttribute(s[end+1:]) {
			break
		}
	}
	if !escaped {
		return strings.Trim(s[i:end], " "), end, nil
	}
	v, err := unescapeDNValue(s[i:end])
	if err != nil {
		return "", 0, err
	}
	return strings.Trim(v, " "), end, nil
}

// parseHexValue parses '#' and a hex BER encoding of a string type. ok is
// false when s[i:] is not of that shape (odd length, no hex digits, or
// text after the hex other than a separator), so that the caller can read
// it as an ordinary string value.
func parseHexValue(s string, i int) (v string, next int, ok bool, err error) {
	j := i + 1
	for j < len(s) && isHexDigit(s[j]) {
		j++
	}
	digits := s[i+1 : j]
	next = skipSpaces(s, j)
	if digits == "" || len(digits)%2 != 0 || next < len(s) && !isDNSeparator(s[next]) {
		return "", 0, false, nil
	}
	der, err := hex.DecodeString(digits)
	if err != nil {
		return "", 0, false, nil
	}
	var value any
	rest, err := asn1.Unmarshal(der, &value)
	str, isString := value.(string)
	if err != nil || len(rest) != 0 || !isString {
		return "", 0, true, errors.New("is '#' followed by hex that is not a BER-encoded string")
	}
	if err := checkText(str); err != nil {
		return "", 0, true, fmt.Errorf("decodes to text with %w", err)
	}
	return strings.Trim(str, " "), next, true, nil
}

// parseQuotedValue parses an RFC 1779 quoted value starting at s[i] == '"'.
func parseQuotedValue(s string, i int) (string, int, error) {
	end := i + 1
	escaped := false
	for ; end < len(s) && s[end] != '"'; end++ {
		if s[end] == '\\' {
			escaped = true
			end++
		}
	}
	if end >= len(s) {
		return "", 0, errors.New("has no closing quote")
	}
	v := s[i+1 : end]
	next := skipSpaces(s, end+1)
	if next < len(s) && !isDNSeparator(s[next]) {
		return "", 0, errors.New("has text after the closing quote")
	}
	if escaped {
		var err error
		if v, err = unescapeDNValue(v); err != nil {
			return "", 0, err
		}
	}
	return strings.Trim(v, " "), next, nil
}

// unescapeDNValue resolves RFC 4514 escapes: a backslash and two hex
// digits stand for a byte, a backslash and any other character for that
// character.
func unescapeDNValue(v string) (string, error) {
	b := make([]byte, 0, len(v))
	for j := 0; j < len(v); j++ {
		c := v[j]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if j+1 == len(v) {
			return "", errors.New("ends with a lone backslash")
		}
		if j+2 < len(v) && isHexDigit(v[j+1]) && isHexDigit(v[j+2]) {
			b = append(b, unhex(v[j+1])<<4|unhex(v[j+2]))
			j += 2
			continue
		}
		b = append(b, v[j+1])
		j++
	}
	s := string(b)
	if err := checkText(s); err != nil {
		return "", fmt.Errorf("unescapes to text with %w", err)
	}
	return s, nil
}

// startsAttribute reports whether s begins, after spaces, with something
// shaped like an attribute type followed by '='.
func startsAttribute(s string) bool {
	i := skipSpaces(s, 0)
	start := i
	for i < len(s) && isAttributeTypeByte(s[i]) {
		i++
	}
	if i == start {
		return false
	}
	i = skipSpaces(s, i)
	return i < len(s) && s[i] == '='
}

// percentDecode decodes %XX escapes. It reports false, leaving the caller
// to read '%' literally, when some '%' does not start a valid escape.
func percentDecode(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
			return "", false
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), true
}

// DNFromRaw parses a DER RDNSequence such as x509.Certificate.RawIssuer.
// Unlike pkix.Name's fields it keeps every attribute, including
// organizationIdentifier (2.5.4.97). Values must be ASN.1 string types.
func DNFromRaw(raw []byte) (DN, error) {
	var rdns pkix.RDNSequence
	rest, err := asn1.Unmarshal(raw, &rdns)
	if err != nil {
		return nil, errors.New("issuer DN is not a DER-encoded RDNSequence")
	}
	if len(rest) != 0 {
		return nil, errors.New("issuer DN has trailing data after the RDNSequence")
	}
	n := 0
	for _, rdn := range rdns {
		n += len(rdn)
	}
	if n == 0 {
		return nil, errors.New("issuer DN is empty")
	}
	if n > maxDNAttributes {
		return nil, fmt.Errorf("issuer DN has more than %d attributes", maxDNAttributes)
	}
	dn := make(DN, 0, n)
	for _, rdn := range rdns {
		for _, atv := range rdn {
			v, ok := atv.Value.(string)
			if !ok {
				return nil, fmt.Errorf("issuer DN attribute %s has a value that is not a string", atv.Type)
			}
			dn = append(dn, AttributeTypeAndValue{Type: atv.Type, Value: v})
		}
	}
	return dn, nil
}

// Equal reports whether d and o hold the same attributes, as multisets:
// order and RDN grouping are ignored, types are compared as OIDs, and
// values with valuesEqual.
func (d DN) Equal(o DN) bool {
	return matchAttributes(d, o, func(a AttributeTypeAndValue) (asn1.ObjectIdentifier, string, bool) {
		return a.Type, a.Value, true
	})
}

// equalNames is Equal against the attributes of a parsed certificate name
// (pkix.Name.Names), which avoids building a DN on the hot path.
func (d DN) equalNames(names []pkix.AttributeTypeAndValue) bool {
	return matchAttributes(d, names, func(a pkix.AttributeTypeAndValue) (asn1.ObjectIdentifier, string, bool) {
		v, ok := a.Value.(string)
		return a.Type, v, ok
	})
}

// matchAttributes pairs every attribute of d with a distinct equal one of
// other. Greedy pairing is exact because attribute equality is an
// equivalence relation.
func matchAttributes[T any](d DN, other []T, get func(T) (asn1.ObjectIdentifier, string, bool)) bool {
	if len(d) != len(other) || len(d) == 0 || len(d) > maxDNAttributes {
		return false
	}
	var used uint64
	for _, a := range d {
		found := false
		for j, o := range other {
			if used&(1<<j) != 0 {
				continue
			}
			typ, v, ok := get(o)
			if ok && a.Type.Equal(typ) && valuesEqual(a.Value, v) {
				used |= 1 << j
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// valuesEqual compares attribute values the way RFC 4518 string
// preparation roughly does for caseIgnoreMatch, which RFC 5280 section
// 7.1 asks for: leading and trailing spaces ignored, inner runs of spaces
// equal to one space, and Unicode simple case folding. Invalid UTF-8
// never matches. It does not allocate.
func valuesEqual(a, b string) bool {
	a, b = strings.Trim(a, " "), strings.Trim(b, " ")
	for a != "" && b != "" {
		if a[0] == ' ' && b[0] == ' ' {
			a, b = strings.TrimLeft(a, " "), strings.TrimLeft(b, " ")
			continue
		}
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra == utf8.RuneError && na == 1 || rb == utf8.RuneError && nb == 1 {
			return false
		}
		if !runesEqualFold(ra, rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b == ""
}

// runesEqualFold reports whether r and s are equal under Unicode simple
// case folding, as strings.EqualFold does per rune.
func runesEqualFold(r, s rune) bool {
	if r == s {
		return true
	}
	if s < r {
		r, s = s, r
	}
	if s < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z' && s == r+'a'-'A'
	}
	f := unicode.SimpleFold(r)
	for f != r && f < s {
		f = unicode.SimpleFold(f)
	}
	return f == s
}

// isAttributeTypeByte reports whether c may appear in an attribute type:
// a name (letters, digits, '-') or a dotted OID.
func isAttributeTypeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.'
}

// isDNSeparator reports whether c separates RDNs (',' or the RFC 2253
// legacy ';') or attributes of a multi-valued RDN ('+').
func isDNSeparator(c byte) bool {
	return c == ',' || c == '+' || c == ';'
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unhex returns the value of a hex digit; c must satisfy isHexDigit.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
