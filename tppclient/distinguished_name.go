package tppclient

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// attributeTypeAndValue keeps the raw value, so that attributes of unknown
// type can be written as "#" and the hex of their DER (RFC 2253 2.4).
type attributeTypeAndValue struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// relativeDistinguishedNameSET is a SET OF; encoding/asn1 recognises the
// SET suffix of the type name.
type relativeDistinguishedNameSET []attributeTypeAndValue

// attributeNames are the short names written for known attribute types:
// RFC 2253's list, the ones Go's pkix.Name.String also names, and
// organizationIdentifier (X.520, used by eIDAS certificates).
var attributeNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.6":                    "C",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
	"2.5.4.5":                    "SERIALNUMBER",
	"2.5.4.17":                   "POSTALCODE",
	"2.5.4.97":                   "organizationIdentifier",
}

// RFC2253 renders a DER-encoded X.501 Name (such as
// x509.Certificate.RawIssuer) as an RFC 2253 string: RDNs last to first,
// separated by ',', multi-valued RDNs joined with '+', special characters
// escaped with '\'. Unlike pkix.Name.String it keeps the certificate's own
// RDN order and writes 2.5.4.97 as organizationIdentifier.
func RFC2253(rawName []byte) (string, error) {
	var rdns []relativeDistinguishedNameSET
	rest, err := asn1.Unmarshal(rawName, &rdns)
	if err != nil {
		return "", fmt.Errorf("tppclient: parse distinguished name: %w", err)
	}
	if len(rest) != 0 {
		return "", errors.New("tppclient: trailing data after distinguished name")
	}
	var sb strings.Builder
	for i := len(rdns) - 1; i >= 0; i-- {
		if i != len(rdns)-1 {
			sb.WriteByte(',')
		}
		for j, atv := range rdns[i] {
			if j > 0 {
				sb.WriteByte('+')
			}
			if err := writeAttribute(&sb, atv); err != nil {
				return "", err
			}
		}
	}
	return sb.String(), nil
}

func writeAttribute(sb *strings.Builder, atv attributeTypeAndValue) error {
	oid := atv.Type.String()
	name, known := attributeNames[oid]
	if !known {
		name = oid
	}
	sb.WriteString(name)
	sb.WriteByte('=')
	s, isString, err := decodeDirectoryString(atv.Value)
	if err != nil {
		return err
	}
	if !known || !isString {
		sb.WriteByte('#')
		sb.WriteString(strings.ToUpper(hex.EncodeToString(atv.Value.FullBytes)))
		return nil
	}
	writeEscapedValue(sb, s)
	return nil
}

// decodeDirectoryString returns the text of the string types a
// DirectoryString and its relatives use; isString is false for others.
func decodeDirectoryString(v asn1.RawValue) (s string, isString bool, err error) {
	if v.Class != asn1.ClassUniversal {
		return "", false, nil
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, 26 /* VisibleString */ :
		return string(v.Bytes), true, nil
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false, errors.New("tppclient: BMPString of odd length in distinguished name")
		}
		u := make([]uint16, len(v.Bytes)/2)
		for i := range u {
			u[i] = uint16(v.Bytes[2*i])<<8 | uint16(v.Bytes[2*i+1])
		}
		return string(utf16.Decode(u)), true, nil
	case 28: // UniversalString, UTF-32BE
		if len(v.Bytes)%4 != 0 {
			return "", false, errors.New("tppclient: UniversalString of bad length in distinguished name")
		}
		var sb strings.Builder
		for i := 0; i < len(v.Bytes); i += 4 {
			r := rune(v.Bytes[i])<<24 | rune(v.Bytes[i+1])<<16 | rune(v.Bytes[i+2])<<8 | rune(v.Bytes[i+3])
			sb.WriteRune(r)
		}
		return sb.String(), true, nil
	}
	return "", false, nil
}

// writeEscapedValue escapes per RFC 2253 2.4: ',', '+', '"', '\\', '<',
// '>', ';', a leading '#' or space and a trailing space with a backslash;
// control characters and invalid UTF-8 bytes as "\" and two hex digits.
func writeEscapedValue(sb *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f:
			fmt.Fprintf(sb, `\%02X`, s[i])
		case r == ',' || r == '+' || r == '"' || r == '\\' || r == '<' || r == '>' || r == ';',
			r == '#' && i == 0,
			r == ' ' && (i == 0 || i == len(s)-1):
			sb.WriteByte('\\')
			sb.WriteRune(r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
}

// DefaultKeyID returns the keyId the interface description prescribes for
// cert: "SN=<serial in upper-case hex>,CA=<issuer DN per RFC 2253>".
func DefaultKeyID(cert *x509.Certificate) (string, error) {
	if cert.SerialNumber == nil || cert.SerialNumber.Sign() < 0 {
		return "", errors.New("tppclient: certificate has no usable serial number")
	}
	issuer, err := RFC2253(cert.RawIssuer)
	if err != nil {
		return "", err
	}
	return "SN=" + strings.ToUpper(cert.SerialNumber.Text(16)) + ",CA=" + issuer, nil
}
