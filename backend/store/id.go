package store

import (
	"crypto/rand"
	"encoding/base64"
)

// idPrefix starts every resource id.
const idPrefix = "enc!!"

// newID returns a fresh opaque resource id: idPrefix and the unpadded
// base64url form of 18 random bytes (144 bits, so ids cannot be guessed or
// enumerated, and the text has no padding).
func newID() string {
	var raw [18]byte
	rand.Read(raw[:]) // never fails (crypto/rand since Go 1.24)
	var out [len(idPrefix) + 24]byte
	copy(out[:], idPrefix)
	base64.RawURLEncoding.Encode(out[len(idPrefix):], raw[:])
	return string(out[:])
}

// NewID returns a fresh id of the store's form, for a row whose id must be
// known before it is stored: an SCA flow whose sealed link names it.
func NewID() string { return newID() }
