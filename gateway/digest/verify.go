package digest

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"errors"
)

// Verify checks every digest present in d against body, which must be the
// exact bytes received (after chunked decoding, before any Content-Encoding
// is undone, never re-serialised).
func (d Digest) Verify(body []byte) error {
	if !d.HasSHA256 && !d.HasSHA512 {
		return errors.New("Digest has no SHA-256 or SHA-512 value to verify")
	}
	if d.HasSHA256 {
		sum := sha256.Sum256(body)
		if subtle.ConstantTimeCompare(sum[:], d.SHA256[:]) != 1 {
			return errors.New("Digest SHA-256 does not match the request body; hash the exact body bytes sent")
		}
	}
	if d.HasSHA512 {
		sum := sha512.Sum512(body)
		if subtle.ConstantTimeCompare(sum[:], d.SHA512[:]) != 1 {
			return errors.New("Digest SHA-512 does not match the request body; hash the exact body bytes sent")
		}
	}
	return nil
}
