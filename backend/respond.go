package backend

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/bgerror"
)

// link is a Berlin Group link object.
type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

// get is a link to href that takes GET. Its verbs are one slice shared
// by every such link: links are written out, never changed.
func get(href string) link { return link{Href: href, Verbs: getVerbs} }

// getVerbs is the verbs of every link get makes; its capacity is its
// length, so an append would copy it.
var getVerbs = []string{"GET"}[:1:1]

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
