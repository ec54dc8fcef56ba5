// Package privatekey reads an unencrypted PEM private key, whatever its
// container: PKCS #8 ("PRIVATE KEY"), PKCS #1 ("RSA PRIVATE KEY") or SEC 1
// ("EC PRIVATE KEY"). Each user then decides which kinds and sizes it
// accepts (the bank seal, obgw's key at the identity provider, the context
// token's key).
package privatekey

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// Parse returns the key of the first private key block of pemBytes; blocks
// of other types (a certificate beside it) are skipped.
func Parse(pemBytes []byte) (crypto.Signer, error) {
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
