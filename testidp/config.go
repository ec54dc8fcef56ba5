package testidp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"
	"net/url"
)

// User is a test PSU at the provider.
type User struct {
	NationalID string // the Norwegian national identity number (11 digits); also the login name
	Password   string
	Name       string
	ACR        string // the acr this user's login achieves, e.g. "urn:obgw:acr:substantial" or "urn:obgw:acr:high"
}

// Client is a registered relying party. It is confidential: it
// authenticates at the token endpoint with its Secret, by
// client_secret_basic or client_secret_post, or, given a Key instead,
// with a JWT signed by that key's private half (private_key_jwt); it must
// use PKCE S256.
type Client struct {
	ID, Secret string
	// Key is the public half of the client's key for private_key_jwt
	// (*rsa.PublicKey or *ecdsa.PublicKey on P-256: op verifies RS256,
	// PS256 and ES256 assertions). A client has a Secret or a Key, not
	// both: op takes one authentication method per client.
	Key crypto.PublicKey
	// KeyID is Key's kid: an assertion naming another kid is refused; an
	// assertion naming none is checked against Key.
	KeyID string
	// RedirectURIs are compared exactly. https is always allowed; plain
	// http is allowed too, since the client is confidential (op's rule).
	RedirectURIs []string
}

// Config is what a Provider knows: its users and its relying parties.
type Config struct {
	Users   []User
	Clients []Client
}

// validate refuses a configuration the provider could not serve
// unambiguously: a login name or client id given twice, a national
// identity number that is not 11 digits, a client with neither or both of
// secret and key, a key op cannot verify with, or a redirect URI that is
// not an absolute http(s) URL.
func (c Config) validate() error {
	users := make(map[string]bool, len(c.Users))
	for _, u := range c.Users {
		if !isNationalID(u.NationalID) {
			return fmt.Errorf("testidp: user %q: national identity number must be 11 digits", u.NationalID)
		}
		if users[u.NationalID] {
			return fmt.Errorf("testidp: user %q given twice", u.NationalID)
		}
		users[u.NationalID] = true
		if u.Password == "" {
			return fmt.Errorf("testidp: user %q has no password", u.NationalID)
		}
	}
	clients := make(map[string]bool, len(c.Clients))
	for _, cl := range c.Clients {
		if cl.ID == "" {
			return fmt.Errorf("testidp: a client has no id")
		}
		if clients[cl.ID] {
			return fmt.Errorf("testidp: client %q given twice", cl.ID)
		}
		clients[cl.ID] = true
		switch {
		case cl.Secret == "" && cl.Key == nil:
			return fmt.Errorf("testidp: client %q has no secret and no key", cl.ID)
		case cl.Secret != "" && cl.Key != nil:
			return fmt.Errorf("testidp: client %q has a secret and a key: one authentication method per client", cl.ID)
		case cl.Key != nil && !verifiable(cl.Key):
			return fmt.Errorf("testidp: client %q: a %T key cannot verify RS256, PS256 or ES256 assertions", cl.ID, cl.Key)
		}
		if len(cl.RedirectURIs) == 0 {
			return fmt.Errorf("testidp: client %q has no redirect URI", cl.ID)
		}
		for _, r := range cl.RedirectURIs {
			u, err := url.Parse(r)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
				return fmt.Errorf("testidp: client %q: redirect URI %q is not an absolute http(s) URL without fragment", cl.ID, r)
			}
		}
	}
	return nil
}

// verifiable reports whether op can verify a client assertion with k: it
// accepts RS256, PS256 and ES256 only.
func verifiable(k crypto.PublicKey) bool {
	switch k := k.(type) {
	case *rsa.PublicKey:
		return true
	case *ecdsa.PublicKey:
		return k.Curve == elliptic.P256()
	}
	return false
}

func isNationalID(s string) bool {
	if len(s) != 11 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
