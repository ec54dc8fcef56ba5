package backend

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/bgerror"
)

// storeError maps a store failure to the TPP's error (respond.StoreError),
// logged on the server's log.
func (s *Server) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.log, err, what)
}

// randomToken returns 32 random bytes, URL-safe base64 encoded.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
