package testidp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

const (
	// authRequestLifetime bounds the time from the authorization request
	// to the code exchange, login included.
	authRequestLifetime = 10 * time.Minute
	// accessTokenLifetime is how long an access token works at the
	// userinfo endpoint.
	accessTokenLifetime = 10 * time.Minute
)

// errUnknownAuthRequest is what a login for an authorization request the
// provider does not hold (unknown, expired or already used) gets.
var errUnknownAuthRequest = errors.New("testidp: unknown or expired authorization request")

// errWrongCredentials is what a login with an unknown national identity
// number or a wrong password gets.
var errWrongCredentials = errors.New("testidp: unknown national identity number or wrong password")

// storage is the provider's op.Storage, in memory: the configured users
// and clients (fixed after start), and the authorization requests, codes
// and access tokens of flows in progress, under one lock.
type storage struct {
	users    map[string]*User // by NationalID
	subjects map[string]*User // by Subject(NationalID)
	clients  map[string]Client
	loginURL string
	key      *signingKey

	mu           sync.Mutex
	authRequests map[string]*authRequest // by id
	codes        map[string]string       // code -> authRequest id
	tokens       map[string]*accessToken // by id
}

// accessToken is an issued (opaque, bearer) access token, good at the
// userinfo endpoint until it expires.
type accessToken struct {
	id       string
	subject  string
	clientID string
	scopes   []string
	expires  time.Time
}

var (
	_ op.Storage                   = (*storage)(nil)
	_ op.CanSetUserinfoFromRequest = (*storage)(nil)
)

func newStorage(cfg Config, loginURL string, key *signingKey) *storage {
	s := &storage{
		users:        make(map[string]*User, len(cfg.Users)),
		subjects:     make(map[string]*User, len(cfg.Users)),
		clients:      make(map[string]Client, len(cfg.Clients)),
		loginURL:     loginURL,
		key:          key,
		authRequests: make(map[string]*authRequest),
		codes:        make(map[string]string),
		tokens:       make(map[string]*accessToken),
	}
	for _, u := range cfg.Users {
		s.users[u.NationalID] = &u
		s.subjects[Subject(u.NationalID)] = &u
	}
	for _, c := range cfg.Clients {
		c.RedirectURIs = slices.Clone(c.RedirectURIs)
		s.clients[c.ID] = c
	}
	return s
}

// CreateAuthRequest stores a validated authorization request for the login
// page. It refuses requests without PKCE S256, and prompt=none, since the
// provider keeps no session that could answer without a login.
func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if slices.Contains(r.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired().WithDescription("testidp keeps no login session")
	}
	if r.CodeChallenge == "" || r.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE with code_challenge_method S256 is required")
	}
	now := time.Now()
	req := newAuthRequest(rand.Text(), r, now)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropExpiredLocked(now)
	s.authRequests[req.id] = req
	copied := *req
	return &copied, nil
}

// dropExpiredLocked forgets authorization requests (and their codes) and
// access tokens past their lifetime, so that a long-running demo does not
// grow.
func (s *storage) dropExpiredLocked(now time.Time) {
	for id, r := range s.authRequests {
		if now.Sub(r.created) > authRequestLifetime {
			delete(s.authRequests, id)
		}
	}
	for code, id := range s.codes {
		if _, ok := s.authRequests[id]; !ok {
			delete(s.codes, code)
		}
	}
	for id, t := range s.tokens {
		if now.After(t.expires) {
			delete(s.tokens, id)
		}
	}
}

// authRequestLocked is the live authorization request id, or nil.
func (s *storage) authRequestLocked(id string) *authRequest {
	r, ok := s.authRequests[id]
	if !ok || time.Since(r.created) > authRequestLifetime {
		return nil
	}
	return r
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.authRequestLocked(id)
	if r == nil {
		return nil, errUnknownAuthRequest
	}
	copied := *r
	return &copied, nil
}

func (s *storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.authRequestLocked(s.codes[code])
	if r == nil || !r.done {
		return nil, errors.New("testidp: unknown, expired or used code")
	}
	copied := *r
	return &copied, nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.authRequestLocked(id) == nil {
		return errUnknownAuthRequest
	}
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest runs when the code has been exchanged: the request and
// every code for it are gone, so a code works once.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.authRequests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// login identifies the user of authorization request id by national
// identity number and password and completes the request with that
// user's subject and acr.
func (s *storage) login(id, nationalID, password string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.authRequestLocked(id)
	if r == nil || r.done {
		return errUnknownAuthRequest
	}
	u, ok := s.users[nationalID]
	if !ok || u.Password != password {
		return errWrongCredentials
	}
	r.subject = Subject(u.NationalID)
	r.acr = u.ACR
	r.authTime = time.Now()
	r.done = true
	return nil
}

// pendingAuthRequest is a copy of the authorization request id still
// waiting for its login, for the login page to show.
func (s *storage) pendingAuthRequest(id string) (authRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.authRequestLocked(id)
	if r == nil || r.done {
		return authRequest{}, errUnknownAuthRequest
	}
	return *r, nil
}

// CreateAccessToken issues an opaque access token for a completed
// authorization request. The expiry it reports to op is shifted by the
// request's clock offset (clock.go); the one it keeps is true.
func (s *storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	r, ok := req.(*authRequest)
	if !ok {
		return "", time.Time{}, fmt.Errorf("testidp: access tokens are issued for the authorization code flow only, not for %T", req)
	}
	t := &accessToken{
		id:       rand.Text(),
		subject:  r.subject,
		clientID: r.clientID,
		scopes:   r.scopes,
		expires:  time.Now().Add(accessTokenLifetime),
	}
	s.mu.Lock()
	s.tokens[t.id] = t
	s.mu.Unlock()
	return t.id, accessTokenExpiryForOp(t.expires, clockOffsetFrom(ctx)), nil
}

// CreateAccessAndRefreshTokens is never reached: no client has the
// refresh_token grant.
func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("testidp: refresh tokens are not issued")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

// TerminateSession revokes the user's access tokens for the client; there
// is no login session to end.
func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.tokens {
		if t.subject == userID && t.clientID == clientID {
			delete(s.tokens, id)
		}
	}
	return nil
}

func (s *storage) RevokeToken(_ context.Context, tokenID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tokenID]
	if !ok {
		return nil // unknown or gone: revoked is what the client wants
	}
	if t.clientID != clientID {
		return oidc.ErrInvalidClient().WithDescription("token was not issued to this client")
	}
	delete(s.tokens, tokenID)
	return nil
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return s.key, nil }

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{s.key}}, nil
}

// GetClientByClientID builds the client for this request, with the clock
// offset the request arrived with.
func (s *storage) GetClientByClientID(ctx context.Context, clientID string) (op.Client, error) {
	c, ok := s.clients[clientID]
	if !ok {
		return nil, fmt.Errorf("testidp: unknown client %q", clientID)
	}
	return &client{Client: c, loginURL: s.loginURL, clockOffset: clockOffsetFrom(ctx)}, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, clientID, secret string) error {
	c, ok := s.clients[clientID]
	if !ok {
		return fmt.Errorf("testidp: unknown client %q", clientID)
	}
	if c.Secret == "" || c.Secret != secret {
		return fmt.Errorf("testidp: wrong secret for client %q", clientID)
	}
	return nil
}

// SetUserinfoFromScopes is empty, as op asks of it: the ID token's claims
// come from SetUserinfoFromRequest.
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's user claims (claims.go).
func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, _ []string) error {
	u, ok := s.subjects[req.GetSubject()]
	if !ok {
		return fmt.Errorf("testidp: unknown subject %q", req.GetSubject())
	}
	setUserinfo(info, u)
	return nil
}

// liveToken is a copy of the access token id if it has not expired.
func (s *storage) liveToken(id string) (accessToken, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[id]
	if !ok || time.Now().After(t.expires) {
		return accessToken{}, false
	}
	return *t, true
}

// SetUserinfoFromToken answers the userinfo endpoint with the same claims
// as the ID token.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, _, _ string) error {
	t, ok := s.liveToken(tokenID)
	if !ok {
		return errors.New("testidp: access token unknown or expired")
	}
	u, ok := s.subjects[t.subject]
	if !ok {
		return fmt.Errorf("testidp: unknown subject %q", t.subject)
	}
	setUserinfo(info, u)
	return nil
}

// SetIntrospectionFromToken answers introspection for the client the token
// was issued to.
func (s *storage) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, tokenID, _, clientID string) error {
	t, ok := s.liveToken(tokenID)
	if !ok || t.clientID != clientID {
		return errors.New("testidp: access token unknown, expired or not this client's")
	}
	u, ok := s.subjects[t.subject]
	if !ok {
		return fmt.Errorf("testidp: unknown subject %q", t.subject)
	}
	info := new(oidc.UserInfo)
	setUserinfo(info, u)
	resp.SetUserInfo(info)
	resp.Scope = t.scopes
	resp.ClientID = t.clientID
	resp.Expiration = oidc.FromTime(t.expires)
	return nil
}

// GetPrivateClaimsFromScopes is for JWT access tokens, which the provider
// does not issue.
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

// GetKeyByIDAndClientID is the key op verifies a client's private_key_jwt
// assertion with (op.VerifyJWTAssertion checks its issuer, subject,
// audience, expiry and issue time, then its signature with this key). op
// asks by the client id the assertion's iss names and the kid its header
// names (empty if none).
func (s *storage) GetKeyByIDAndClientID(_ context.Context, keyID, clientID string) (*jose.JSONWebKey, error) {
	c, ok := s.clients[clientID]
	if !ok || c.Key == nil {
		return nil, fmt.Errorf("testidp: client %q has no key", clientID)
	}
	if keyID != "" && keyID != c.KeyID {
		return nil, fmt.Errorf("testidp: client %q has no key %q", clientID, keyID)
	}
	return &jose.JSONWebKey{Key: c.Key, KeyID: c.KeyID, Use: "sig"}, nil
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("testidp: the JWT profile grant is not supported")
}

func (s *storage) Health(context.Context) error { return nil }
