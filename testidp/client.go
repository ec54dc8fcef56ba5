package testidp

import (
	"net/url"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// idTokenLifetime is how long an ID token is valid, on the provider's
// (possibly shifted) clock.
const idTokenLifetime = 10 * time.Minute

// client is a registered Client as op sees it during one request: a
// confidential web application using the authorization code flow only.
// It is built afresh for each request (GetClientByClientID), carrying that
// request's clock offset (see clock.go). It implements op.Client.
type client struct {
	Client
	loginURL    string // the login page, absolute
	clockOffset time.Duration
}

var _ op.Client = (*client)(nil)

func (c *client) GetID() string                    { return c.ID }
func (c *client) RedirectURIs() []string           { return c.Client.RedirectURIs }
func (c *client) PostLogoutRedirectURIs() []string { return nil }
func (c *client) ApplicationType() op.ApplicationType {
	return op.ApplicationTypeWeb
}

// AuthMethod is private_key_jwt for a client with a Key; else
// client_secret_basic, and op accepts the secret in the form body
// (client_secret_post) from such a client too, since the provider enables
// AuthMethodPost.
func (c *client) AuthMethod() oidc.AuthMethod {
	if c.Key != nil {
		return oidc.AuthMethodPrivateKeyJWT
	}
	return oidc.AuthMethodBasic
}
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c *client) DevMode() bool                       { return false }
func (c *client) IsScopeAllowed(string) bool          { return false }

// LoginURL is where op sends the browser to log in for the authorization
// request id.
func (c *client) LoginURL(id string) string {
	return c.loginURL + "?" + url.Values{loginRequestParam: {id}}.Encode()
}

func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(scopes []string) []string { return scopes }
}

// IDTokenUserinfoClaimsAssertion is false: the claims the provider adds
// (claims.go) do not depend on the profile scope surviving into the ID
// token.
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }

// ClockSkew and IDTokenLifetime together shift the ID token's clock by the
// request's offset: see clock.go.
func (c *client) ClockSkew() time.Duration { return skewFor(c.clockOffset) }
func (c *client) IDTokenLifetime() time.Duration {
	return lifetimeFor(idTokenLifetime, c.clockOffset)
}
