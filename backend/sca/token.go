package sca

import (
	"crypto/rand"
	"encoding/base64"
)

// randomToken returns 32 random bytes, URL-safe base64 encoded.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
