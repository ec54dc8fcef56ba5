package testidp

import (
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// authRequest is one authorization request from its arrival at the
// authorize endpoint until its code is exchanged: what the relying party
// asked for, and, once the login page has identified the user, who logged
// in and with which acr. It implements op.AuthRequest.
//
// The storage hands op copies, never the stored value, so that a login
// completing on one request cannot change an authRequest op is reading on
// another.
type authRequest struct {
	id            string
	created       time.Time
	clientID      string
	redirectURI   string
	state         string
	nonce         string
	scopes        []string
	responseType  oidc.ResponseType
	responseMode  oidc.ResponseMode
	codeChallenge *oidc.CodeChallenge
	acrValues     []string
	loginHint     string

	// Set by a successful login.
	done     bool
	subject  string
	acr      string
	authTime time.Time
}

var _ op.AuthRequest = (*authRequest)(nil)

func newAuthRequest(id string, r *oidc.AuthRequest, now time.Time) *authRequest {
	var challenge *oidc.CodeChallenge
	if r.CodeChallenge != "" {
		challenge = &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
	}
	return &authRequest{
		id:            id,
		created:       now,
		clientID:      r.ClientID,
		redirectURI:   r.RedirectURI,
		state:         r.State,
		nonce:         r.Nonce,
		scopes:        r.Scopes,
		responseType:  r.ResponseType,
		responseMode:  r.ResponseMode,
		codeChallenge: challenge,
		acrValues:     r.ACRValues,
		loginHint:     r.LoginHint,
	}
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return a.acr }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.codeChallenge }
func (a *authRequest) Done() bool                            { return a.done }

// GetAudience is the client alone: the ID token is for the relying party
// that asked for it.
func (a *authRequest) GetAudience() []string { return []string{a.clientID} }

// GetAMR says how the user authenticated: by password, on the login page.
func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}
