package tppclient

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"
)

// keyID is a parsed keyId: "SN=<serial in hex>,CA=<issuer DN>".
type keyID struct {
	serial *big.Int
	issuer []dnAttribute
}

// dnAttribute is one attribute of a distinguished name: its type as a
// dotted OID and its value as text.
type dnAttribute struct {
	oid   string
	value string
}

// dnAttributeTypes are the attribute type names a bank's keyId may use,
// in lower case, by the OIDs they name: RFC 4514's, the aliases OpenSSL,
// Java and .NET write (S, E), and organizationIdentifier.
var dnAttributeTypes = map[string]string{
	"cn":                     "2.5.4.3",
	"sn":                     "2.5.4.4",
	"serialnumber":           "2.5.4.5",
	"c":                      "2.5.4.6",
	"l":                      "2.5.4.7",
	"st":                     "2.5.4.8",
	"s":                      "2.5.4.8",
	"street":                 "2.5.4.9",
	"o":                      "2.5.4.10",
	"ou":                     "2.5.4.11",
	"title":                  "2.5.4.12",
	"postalcode":             "2.5.4.17",
	"givenname":              "2.5.4.42",
	"organizationidentifier": "2.5.4.97",
	"e":                      "1.2.840.113549.1.9.1",
	"emailaddress":           "1.2.840.113549.1.9.1",
	"uid":                    "0.9.2342.19200300.100.1.1",
	"dc":                     "0.9.2342.19200300.100.1.25",
}

// maxKeyIDAttributes bounds the attributes of a keyId's issuer.
const maxKeyIDAttributes = 64

// parseKeyID reads a keyId as the description writes it: "SN=" and the
// certificate serial in hex (either case, leading zeros allowed), a comma
// (spaces may follow), "CA=" and the issuer DN as RFC 4514 writes it.
// SN and CA may be in any case.
func parseKeyID(s string) (keyID, error) {
	var k keyID
	if len(s) < 3 || !strings.EqualFold(s[:3], "SN=") {
		return k, fmt.Errorf("the keyId %q does not start with SN=", s)
	}
	serial, dn, ok := strings.Cut(s[3:], ",")
	dn = strings.TrimLeft(dn, " ")
	if !ok || len(dn) < 3 || !strings.EqualFold(dn[:3], "CA=") {
		return k, fmt.Errorf("the keyId %q has no ,CA= after the serial", s)
	}
	digits := strings.TrimLeft(serial, "0")
	if serial == "" || len(digits) > 40 || strings.Trim(serial, "0123456789abcdefABCDEF") != "" {
		return k, fmt.Errorf("the keyId's serial %q is not a certificate serial in hex", serial)
	}
	k.serial, _ = new(big.Int).SetString("0"+digits, 16)
	var err error
	if k.issuer, err = parseDN(dn[3:]); err != nil {
		return k, fmt.Errorf("the keyId's issuer: %v", err)
	}
	return k, nil
}

// parseDN reads a distinguished name as RFC 4514 writes it: type=value
// pairs separated by ',' (or the older ';') and, within an RDN, '+';
// spaces around them are ignored. A type is a name of dnAttributeTypes in
// any case or a dotted OID ("OID." before it allowed). A value is a
// string with RFC 4514 escapes (\, or \2C), an RFC 1779 quoted string, or
// '#' and the hex of a DER UTF8String, PrintableString or IA5String. The
// order of the attributes is kept; matching ignores it.
func parseDN(s string) ([]dnAttribute, error) {
	var dn []dnAttribute
	i := 0
	for {
		i = skipBlanks(s, i)
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, fmt.Errorf("expected type=value at byte %d", i)
		}
		oid, err := attributeOID(strings.TrimRight(s[i:i+eq], " "))
		if err != nil {
			return nil, err
		}
		i = skipBlanks(s, i+eq+1)
		var value string
		switch {
		case i < len(s) && s[i] == '#':
			value, i, err = hexValue(s, i+1)
		case i < len(s) && s[i] == '"':
			value, i, err = quotedValue(s, i+1)
		default:
			value, i, err = escapedValue(s, i)
		}
		if err != nil {
			return nil, fmt.Errorf("the value of %s %v", oid, err)
		}
		if !utf8.ValidString(value) {
			return nil, fmt.Errorf("the value of %s is not UTF-8", oid)
		}
		for _, r := range value {
			if r < 0x20 || r == 0x7f {
				return nil, fmt.Errorf("the value of %s has a control character", oid)
			}
		}
		if len(dn) == maxKeyIDAttributes {
			return nil, fmt.Errorf("more than %d attributes", maxKeyIDAttributes)
		}
		dn = append(dn, dnAttribute{oid: oid, value: value})
		i = skipBlanks(s, i)
		if i == len(s) {
			return dn, nil
		}
		if c := s[i]; c != ',' && c != ';' && c != '+' {
			return nil, fmt.Errorf("expected ',' or '+' at byte %d", i)
		}
		i++
	}
}

// attributeOID resolves an attribute type as written to a dotted OID.
func attributeOID(t string) (string, error) {
	if oid, ok := dnAttributeTypes[strings.ToLower(t)]; ok {
		return oid, nil
	}
	if len(t) > 4 && strings.EqualFold(t[:4], "oid.") {
		t = t[4:]
	}
	arcs := strings.Split(t, ".")
	if len(arcs) < 2 || len(arcs) > 32 {
		return "", fmt.Errorf("unknown attribute type %q", t)
	}
	for n, a := range arcs {
		if a == "" || len(a) > 9 || len(a) > 1 && a[0] == '0' || strings.Trim(a, "0123456789") != "" {
			return "", fmt.Errorf("unknown attribute type %q", t)
		}
		if n == 0 && a > "2" || n == 1 && arcs[0] < "2" && (len(a) > 2 || len(a) == 2 && a > "39") {
			return "", fmt.Errorf("unknown attribute type %q", t)
		}
	}
	return t, nil
}

// hexValue reads the hex of a DER string value after '#'.
func hexValue(s string, i int) (string, int, error) {
	j := i
	for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
		j++
	}
	der, err := hex.DecodeString(s[i:j])
	if err != nil || len(der) == 0 {
		return "", 0, errors.New("is '#' without the hex of a DER value")
	}
	var v asn1.RawValue
	rest, err := asn1.Unmarshal(der, &v)
	if err != nil || len(rest) != 0 || v.Class != asn1.ClassUniversal {
		return "", 0, errors.New("is '#' and hex that is not one DER value")
	}
	switch v.Tag {
	case asn1.TagUTF8String:
	case asn1.TagPrintableString:
		for _, c := range v.Bytes {
			if !isPrintableStringByte(c) {
				return "", 0, errors.New("is a PrintableString with a character PrintableString does not allow")
			}
		}
	case asn1.TagIA5String:
		for _, c := range v.Bytes {
			if c >= 0x80 {
				return "", 0, errors.New("is an IA5String with a byte above 0x7F")
			}
		}
	default:
		return "", 0, errors.New("is '#' and hex of a value that is not a UTF8String, PrintableString or IA5String")
	}
	return strings.Trim(string(v.Bytes), " "), j, nil
}

// isPrintableStringByte reports whether c may appear in an ASN.1
// PrintableString (X.680 41.4); like Go's encoding/asn1 it also allows '*'
// and '&', which certificates in use carry.
func isPrintableStringByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte(" '()+,-./:=?*&", c) >= 0
}

// quotedValue reads an RFC 1779 quoted value whose opening quote is just
// before s[i]; a backslash keeps the next byte.
func quotedValue(s string, i int) (string, int, error) {
	var b strings.Builder
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 == len(s) {
				return "", 0, errors.New("ends with a lone backslash")
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return strings.Trim(b.String(), " "), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, errors.New("has no closing quote")
}

// escapedValue reads an RFC 4514 string value up to the next unescaped
// ',', ';' or '+': a backslash and two hex digits stand for a byte, a
// backslash and any other character for that character. Unescaped spaces
// at either end are not part of the value.
func escapedValue(s string, i int) (string, int, error) {
	var b strings.Builder
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',' || c == ';' || c == '+':
			return strings.Trim(b.String(), " "), i, nil
		case c == '"':
			return "", 0, errors.New("has an unescaped quote")
		case c != '\\':
			b.WriteByte(c)
		case i+1 == len(s):
			return "", 0, errors.New("ends with a lone backslash")
		case i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v, _ := hex.DecodeString(s[i+1 : i+3])
			b.Write(v)
			i += 2
		default:
			i++
			b.WriteByte(s[i])
		}
	}
	return strings.Trim(b.String(), " "), i, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func skipBlanks(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// names reports whether k names cert: the same serial, and an issuer
// with the same attributes in any order, each type compared as an OID
// and each value with sameValue.
func (k keyID) names(cert *x509.Certificate) bool {
	if cert.SerialNumber == nil || k.serial.Cmp(cert.SerialNumber) != 0 {
		return false
	}
	var rdns []relativeDistinguishedNameSET
	if rest, err := asn1.Unmarshal(cert.RawIssuer, &rdns); err != nil || len(rest) != 0 {
		return false
	}
	var issuer []dnAttribute
	for _, rdn := range rdns {
		for _, atv := range rdn {
			v, isString, err := decodeDirectoryString(atv.Value)
			if err != nil || !isString {
				return false
			}
			issuer = append(issuer, dnAttribute{oid: atv.Type.String(), value: v})
		}
	}
	if len(issuer) != len(k.issuer) || len(issuer) == 0 {
		return false
	}
	used := make([]bool, len(issuer))
	for _, a := range k.issuer {
		found := false
		for j, b := range issuer {
			if !used[j] && a.oid == b.oid && sameValue(a.value, b.value) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sameValue compares attribute values as RFC 5280 7.1 asks
// (caseIgnoreMatch, roughly RFC 4518): spaces at either end ignored, runs
// of inner spaces as one, letters compared under Unicode case folding.
func sameValue(a, b string) bool {
	if !utf8.ValidString(a) || !utf8.ValidString(b) {
		return false
	}
	return strings.EqualFold(oneSpace(a), oneSpace(b))
}

// oneSpace drops the spaces (U+0020) at either end of v and writes each
// inner run of them as one.
func oneSpace(v string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.Trim(v, " "), " ") {
		if w == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}
