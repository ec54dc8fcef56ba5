package testidp

import (
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
// client_secret_basic or client_secret_post, and must use PKCE S256.
type Client struct {
	ID, Secret string
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
// identity number that is not 11 digits, a client without secret or with
// a redirect URI that is not an absolute http(s) URL.
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
		if cl.Secret == "" {
			return fmt.Errorf("testidp: client %q has no secret", cl.ID)
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
