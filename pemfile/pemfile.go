// Package pemfile reads what PEM files hand obgw: certificates, and an
// unencrypted private key whatever its container, PKCS #8 ("PRIVATE KEY"),
// PKCS #1 ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY"). Each user then
// decides which kinds and sizes it accepts (the bank seal, obgw's key at
// the identity provider, the context token's key, trusted CAs).
package pemfile

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// Certificates returns the certificates of every CERTIFICATE block of
// pemBytes, in order; blocks of other types are skipped. None is an error.
func Certificates(pemBytes []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for rest := pemBytes; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no CERTIFICATE PEM block")
	}
	return out, nil
}

// PrivateKey returns the key of the first private key block of pemBytes;
// blocks of other types (a certificate beside it) are skipped.
func PrivateKey(pemBytes []byte) (crypto.Signer, error) {
	for rest := pemBytes; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return nil, errors.New(`no "PRIVATE KEY", "RSA PRIVATE KEY" or "EC PRIVATE KEY" PEM block (encrypted keys are not supported)`)
		}
		var key any
		var err error
		switch b.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(b.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s PEM block: %w", b.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("a %T key cannot sign", key)
		}
		return signer, nil
	}
}
