package signature

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

// keyIDAttributeNames are the names FormatKeyID writes for attribute
// types: RFC 2253's list, the ones Go's pkix.Name.String also names, and
// organizationIdentifier (X.520, in every eIDAS certificate). Other types
// are written as dotted OIDs, with their value as '#' and the hex of its
// DER (RFC 2253 2.3 and 2.4).
var keyIDAttributeNames = map[string]string{
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

// rawAttribute keeps an attribute's value as DER, so that a value of a
// type with no string form can be written as '#' and its hex.
type rawAttribute struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// rdnSET is one RelativeDistinguishedName; encoding/asn1 reads the SET
// suffix of the type name as SET OF.
type rdnSET []rawAttribute

// FormatKeyID is the keyId the interface description prescribes for a
// certificate, as the bank's seal sends it: "SN=<serial in upper-case
// hex>,CA=<issuer DN per RFC 2253>", the RDNs last to first as RFC 2253
// writes them, multi-valued RDNs joined with '+'. ParseKeyID reads it
// back. The TPP's client (package tppclient) derives its keyId on its own
// from the same rules; a test holds the two to the same bytes.
func FormatKeyID(cert *x509.Certificate) (string, error) {
	if cert.SerialNumber == nil || cert.SerialNumber.Sign() < 0 {
		return "", errors.New("the certificate has no usable serial number for a keyId")
	}
	var rdns []rdnSET
	rest, err := asn1.Unmarshal(cert.RawIssuer, &rdns)
	if err != nil || len(rest) != 0 {
		return "", errors.New("the certificate's issuer is not a DER-encoded RDNSequence")
	}
	var sb strings.Builder
	sb.WriteString("SN=")
	sb.WriteString(strings.ToUpper(cert.SerialNumber.Text(16)))
	sb.WriteString(",CA=")
	for i := len(rdns) - 1; i >= 0; i-- {
		if i != len(rdns)-1 {
			sb.WriteByte(',')
		}
		for j, atv := range rdns[i] {
			if j > 0 {
				sb.WriteByte('+')
			}
			if err := writeKeyIDAttribute(&sb, atv); err != nil {
				return "", err
			}
		}
	}
	return sb.String(), nil
}

// writeKeyIDAttribute writes one "type=value" of FormatKeyID.
func writeKeyIDAttribute(sb *strings.Builder, atv rawAttribute) error {
	oid := atv.Type.String()
	name, known := keyIDAttributeNames[oid]
	if !known {
		name = oid
	}
	sb.WriteString(name)
	sb.WriteByte('=')
	s, isString, err := directoryString(atv.Value)
	if err != nil {
		return err
	}
	if !known || !isString {
		sb.WriteByte('#')
		sb.WriteString(strings.ToUpper(hex.EncodeToString(atv.Value.FullBytes)))
		return nil
	}
	writeRFC2253Value(sb, s)
	return nil
}

// directoryString returns the text of a value of one of the string types
// names use (DirectoryString and its relatives); isString is false for any
// other type.
func directoryString(v asn1.RawValue) (s string, isString bool, err error) {
	if v.Class != asn1.ClassUniversal {
		return "", false, nil
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, 26 /* VisibleString */ :
		return string(v.Bytes), true, nil
	case asn1.TagBMPString:
		if len(v.Bytes)%2 != 0 {
			return "", false, errors.New("the certificate's issuer has a BMPString of odd length")
		}
		u := make([]uint16, len(v.Bytes)/2)
		for i := range u {
			u[i] = uint16(v.Bytes[2*i])<<8 | uint16(v.Bytes[2*i+1])
		}
		return string(utf16.Decode(u)), true, nil
	case 28: // UniversalString: UTF-32BE
		if len(v.Bytes)%4 != 0 {
			return "", false, errors.New("the certificate's issuer has a UniversalString of bad length")
		}
		var sb strings.Builder
		for i := 0; i < len(v.Bytes); i += 4 {
			sb.WriteRune(rune(v.Bytes[i])<<24 | rune(v.Bytes[i+1])<<16 | rune(v.Bytes[i+2])<<8 | rune(v.Bytes[i+3]))
		}
		return sb.String(), true, nil
	}
	return "", false, nil
}

// writeRFC2253Value escapes as RFC 2253 2.4 asks: ',', '+', '"', '\\',
// '<', '>', ';', a leading '#' or space and a trailing space with a
// backslash; control characters and bytes that are not UTF-8 as '\' and
// two hex digits.
func writeRFC2253Value(sb *strings.Builder, s string) {
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
