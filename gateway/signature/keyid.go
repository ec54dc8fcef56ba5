package signature

import (
	"crypto/x509"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// maxSerialHexDigits is the longest serial number RFC 5280 allows (20
// octets), in hex digits, after leading zeros are dropped.
const maxSerialHexDigits = 40

// KeyID identifies a certificate by serial number and issuer, as the keyId
// parameter of this dialect does.
type KeyID struct {
	// Serial is the certificate serial number.
	Serial *big.Int
	// Issuer is the issuer DN.
	Issuer DN
}

// ParseKeyID parses a keyId of the form "SN=<hex serial>,CA=<issuer DN>".
// SN and CA are case-insensitive and spaces may follow the comma. The
// serial is hex in either case, leading zeros allowed. Everything after
// "CA=" is the issuer DN, parsed with ParseDN.
func ParseKeyID(s string) (KeyID, error) {
	if len(s) < 3 || !strings.EqualFold(s[:3], "SN=") {
		return KeyID{}, errors.New(`keyId must have the form "SN=<certificate serial in hex>,CA=<issuer DN>"`)
	}
	hexSerial, dn, ok := strings.Cut(s[3:], ",")
	dn = strings.TrimLeft(dn, " ")
	if !ok || len(dn) < 3 || !strings.EqualFold(dn[:3], "CA=") {
		return KeyID{}, errors.New(`keyId has no ",CA=<issuer DN>" after the serial number`)
	}
	serial, err := parseSerial(hexSerial)
	if err != nil {
		return KeyID{}, err
	}
	issuer, err := ParseDN(dn[3:])
	if err != nil {
		return KeyID{}, fmt.Errorf("keyId: %w", err)
	}
	return KeyID{Serial: serial, Issuer: issuer}, nil
}

// parseSerial parses a non-negative hex serial number.
func parseSerial(s string) (*big.Int, error) {
	if s == "" {
		return nil, errors.New("keyId has an empty serial number after SN=; write it in hex")
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return nil, fmt.Errorf("keyId serial number has a non-hex character at byte %d; write it in hex without separators", i)
		}
	}
	digits := strings.TrimLeft(s, "0")
	if len(digits) > maxSerialHexDigits {
		return nil, fmt.Errorf("keyId serial number has %d hex digits, more than the %d of a 20-octet serial", len(digits), maxSerialHexDigits)
	}
	serial := new(big.Int)
	if digits != "" {
		serial.SetString(digits, 16) // cannot fail: only hex digits
	}
	return serial, nil
}

// Matches reports whether k identifies cert: the serial numbers are equal
// as numbers and the issuer DNs are equal as DN.Equal defines. It uses the
// attributes x509.ParseCertificate keeps in cert.Issuer.Names, and parses
// cert.RawIssuer only for a certificate built by hand.
func (k KeyID) Matches(cert *x509.Certificate) bool {
	if cert == nil || k.Serial == nil || cert.SerialNumber == nil || k.Serial.Cmp(cert.SerialNumber) != 0 {
		return false
	}
	if len(cert.Issuer.Names) > 0 {
		return k.Issuer.equalNames(cert.Issuer.Names)
	}
	issuer, err := DNFromRaw(cert.RawIssuer)
	if err != nil {
		return false
	}
	return k.Issuer.Equal(issuer)
}
