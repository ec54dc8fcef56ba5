//go:build !cgo || obgw_purego

package opensslrsa

import (
	"crypto"
	"crypto/rsa"
	"errors"
	"io"
)

// Available reports whether this build signs through OpenSSL: it does not.
const Available = false

// Key is an RSA private key held in OpenSSL; this build has none.
type Key struct{}

// New fails: this build has no OpenSSL (no cgo, or the obgw_purego tag).
func New(*rsa.PrivateKey) (*Key, error) {
	return nil, errors.New("opensslrsa: built without OpenSSL (CGO_ENABLED=0 or the obgw_purego tag)")
}

// Public is never called: New fails.
func (*Key) Public() crypto.PublicKey { return nil }

// Sign is never called: New fails.
func (*Key) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("opensslrsa: not built")
}
