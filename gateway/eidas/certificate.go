package eidas

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"strconv"
	"strings"
)

// MaxCertificateHeaderSize is the largest TPP-Signature-Certificate header
// value accepted, in bytes. Real QSealCs are 1.5 to 3 KiB in base64; the
// bound keeps decoding and parsing cheap for hostile input.
const MaxCertificateHeaderSize = 16 << 10

// RSA key sizes accepted for TPP certificates. 2048 is the floor of ETSI TS
// 119 312; 4096 bounds the verification cost an attacker can impose.
const (
	MinRSABits = 2048
	MaxRSABits = 4096
)

const (
	pemBegin = "-----BEGIN CERTIFICATE-----"
	pemEnd   = "-----END CERTIFICATE-----"
)

// ParseCertificate parses a TPP-Signature-Certificate header value: one
// certificate as base64 DER, optionally with PEM BEGIN/END armour, with
// whitespace and line breaks anywhere. It rejects input over
// MaxCertificateHeaderSize, more than one certificate, and keys other than
// RSA of MinRSABits to MaxRSABits bits. Errors are *Error of KindInvalid.
func ParseCertificate(headerValue string) (*x509.Certificate, error) {
	der, err := DecodeCertificate(headerValue)
	if err != nil {
		return nil, err
	}
	return ParseCertificateDER(der)
}

// DecodeCertificate returns the DER bytes of a TPP-Signature-Certificate
// header value without parsing them, so that callers can look up a cache
// keyed by the DER's SHA-256 before paying for ParseCertificateDER. It applies
// the size, armour and base64 rules of ParseCertificate.
func DecodeCertificate(headerValue string) ([]byte, error) {
	if len(headerValue) > MaxCertificateHeaderSize {
		return nil, invalid("TPP-Signature-Certificate is over 16 KiB; send exactly one certificate as base64 DER")
	}
	s := strings.TrimSpace(headerValue)
	if strings.HasPrefix(s, "-----") {
		if !strings.HasPrefix(s, pemBegin) {
			return nil, invalid("TPP-Signature-Certificate has PEM armour that is not BEGIN CERTIFICATE; send the certificate only")
		}
		s = s[len(pemBegin):]
		end := strings.Index(s, pemEnd)
		if end < 0 {
			return nil, invalid("TPP-Signature-Certificate has BEGIN CERTIFICATE but no END CERTIFICATE line")
		}
		if strings.TrimSpace(s[end+len(pemEnd):]) != "" {
			return nil, invalid("TPP-Signature-Certificate must hold exactly one certificate; remove the chain and anything after END CERTIFICATE")
		}
		s = s[:end]
	}
	if strings.Contains(s, "-----") {
		return nil, invalid("TPP-Signature-Certificate must hold exactly one certificate; remove the chain and other PEM blocks")
	}
	b64 := stripSpace(s)
	if len(b64) == 0 {
		return nil, invalid("TPP-Signature-Certificate is empty; send the QSealC as base64 DER")
	}
	enc := base64.StdEncoding
	if len(b64)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	der := make([]byte, enc.DecodedLen(len(b64)))
	n, err := enc.Decode(der, b64)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Reason: "TPP-Signature-Certificate is not valid base64 (standard alphabet); send the DER certificate base64-encoded", Err: err}
	}
	return der[:n], nil
}

// ParseCertificateDER parses one DER certificate and checks its key as
// ParseCertificate does. The certificate keeps a reference to der.
func ParseCertificateDER(der []byte) (*x509.Certificate, error) {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Reason: "TPP-Signature-Certificate is not exactly one valid DER X.509 certificate", Err: err}
	}
	if err := checkKey(c); err != nil {
		return nil, err
	}
	return c, nil
}

// checkKey enforces RSA with MinRSABits..MaxRSABits bits.
func checkKey(c *x509.Certificate) *Error {
	pub, ok := c.PublicKey.(*rsa.PublicKey)
	if !ok {
		return invalid("certificate key is not RSA; PSD2 certificates here must use RSA keys of 2048 to 4096 bits")
	}
	if bits := pub.N.BitLen(); bits < MinRSABits || bits > MaxRSABits {
		return invalid("certificate RSA key has " + strconv.Itoa(bits) + " bits; use a key of 2048 to 4096 bits")
	}
	return nil
}

// stripSpace returns s without ASCII whitespace, as bytes for the decoder.
func stripSpace(s string) []byte {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			b = append(b, c)
		}
	}
	return b
}
