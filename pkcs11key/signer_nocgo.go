//go:build !cgo

package pkcs11key

import (
	"crypto"
	"errors"
	"io"
)

// Signer is a key in a PKCS #11 token; a build without cgo has none.
type Signer struct{}

// Open fails: PKCS #11 needs cgo (the module is a C library).
func Open(*Location) (*Signer, error) {
	return nil, errors.New("pkcs11: this obgw was built without cgo (CGO_ENABLED=0), and PKCS #11 modules are C libraries: build with cgo, or give the key as a PEM file")
}

// Public is never called: Open fails.
func (*Signer) Public() crypto.PublicKey { return nil }

// Sign is never called: Open fails.
func (*Signer) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("pkcs11: not built")
}

// Available is never called: Open fails.
func (*Signer) Available() bool { return false }

// Close does nothing.
func (*Signer) Close() error { return nil }

// String is empty.
func (*Signer) String() string { return "" }
