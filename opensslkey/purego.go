//go:build !cgo || obgw_purego

package opensslkey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
	"io"
)

// Available reports whether this build signs through OpenSSL: it does not.
const Available = false

// errNotBuilt is every call's answer in a build without OpenSSL.
var errNotBuilt = errors.New("opensslkey: built without OpenSSL (CGO_ENABLED=0 or the obgw_purego tag)")

// RSAKey is an RSA private key held in OpenSSL; this build has none.
type RSAKey struct{}

// NewRSA fails: this build has no OpenSSL (no cgo, or the obgw_purego tag).
func NewRSA(*rsa.PrivateKey) (*RSAKey, error) { return nil, errNotBuilt }

// Public is never called: NewRSA fails.
func (*RSAKey) Public() crypto.PublicKey { return nil }

// Sign is never called: NewRSA fails.
func (*RSAKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) { return nil, errNotBuilt }

// ECDSAKey is an ECDSA private key held in OpenSSL; this build has none.
type ECDSAKey struct{}

// NewECDSA fails: this build has no OpenSSL.
func NewECDSA(*ecdsa.PrivateKey) (*ECDSAKey, error) { return nil, errNotBuilt }

// Public is never called: NewECDSA fails.
func (*ECDSAKey) Public() crypto.PublicKey { return nil }

// Sign is never called: NewECDSA fails.
func (*ECDSAKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) { return nil, errNotBuilt }
