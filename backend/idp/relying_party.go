// Package idp authenticates PSUs at the bank's identity provider over
// OpenID Connect: the authorization code flow with PKCE (S256), a state
// and a nonce per login, and the ID token's signature, issuer, audience,
// expiry, nonce and acr checked. Discovery, key sets and ID-token
// validation are github.com/coreos/go-oidc's, the OAuth 2.0 exchange is
// golang.org/x/oauth2's; this package holds only what obgw decides: which
// claim names the customer, which acr each purpose needs, how long a
// clock may be off, and how an outage differs from a refusal.
package idp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
	"golang.org/x/sync/singleflight"
)

// Config describes the relying party obgw is at the bank's provider.
type Config struct {
	// Issuer is the provider's issuer URL; its discovery document is at
	// Issuer/.well-known/openid-configuration. https, or http on a
	// loopback host (a provider on the same machine, for tests).
	Issuer string
	// ClientID and ClientSecret are obgw's registration at the provider.
	// Without a secret, PrivateKey authenticates obgw (private_key_jwt).
	ClientID, ClientSecret string
	// PrivateKey signs the private_key_jwt client assertions (RSA, ECDSA
	// P-256 or Ed25519), when ClientSecret is empty.
	PrivateKey *ClientKey
	// CustomerClaim is the ID token's claim holding the customer's
	// identification (for BankID the national identity number); default
	// "sub".
	CustomerClaim string
	// Scopes are asked for besides "openid".
	Scopes []string
	// ACRValues are asked for and accepted for account access (a consent,
	// SCA alone); empty: none asked, any accepted.
	ACRValues []string
	// PaymentACRValues are asked for and accepted for authorising or
	// cancelling payments; empty: ACRValues.
	PaymentACRValues []string
	// AppParams are added to the authorization request when the TPP
	// prefers authentication in the bank's app (TPP-Redirect-Preferred:
	// false), for example login_hint or acr_values; they replace the
	// parameters of the same name.
	AppParams url.Values
	// ClockSkew is how far the provider's clock may be off from ours when
	// checking the ID token's expiry and issue time; default one minute.
	ClockSkew time.Duration
	// HTTPClient calls the provider; nil: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Validate reports the first setting that is missing or wrong, naming it.
func (c *Config) Validate() error {
	if c.Issuer == "" {
		return errors.New("issuer is required: the identity provider's issuer URL")
	}
	u, err := url.Parse(c.Issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("issuer %q is not an absolute URL without query or fragment", c.Issuer)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
		return fmt.Errorf("issuer %q must be https (http only on a loopback host)", c.Issuer)
	}
	if c.ClientID == "" {
		return errors.New("client_id is required: obgw's client id at the identity provider")
	}
	if c.ClientSecret == "" && c.PrivateKey == nil {
		return errors.New("client_secret or private_key is required: how obgw authenticates at the identity provider's token endpoint")
	}
	if c.ClockSkew < 0 || c.ClockSkew > 5*time.Minute {
		return fmt.Errorf("clock_skew %v is outside 0 to 5m", c.ClockSkew)
	}
	for name := range c.AppParams {
		if reservedParams[name] {
			return fmt.Errorf("app_param %q would replace a parameter obgw sets itself", name)
		}
	}
	for _, v := range slices.Concat(c.ACRValues, c.PaymentACRValues) {
		if v == "" || strings.ContainsAny(v, " \t") {
			return fmt.Errorf("acr value %q: one value per word, no spaces", v)
		}
	}
	return nil
}

// reservedParams are the authorization request's parameters that bind it
// to the flow: AppParams may not replace them.
var reservedParams = map[string]bool{"state": true, "nonce": true, "redirect_uri": true, "client_id": true,
	"response_type": true, "scope": true, "code_challenge": true, "code_challenge_method": true,
	"prompt": true, "max_age": true}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RelyingParty logs PSUs in at the provider. Discovery happens on first
// use and is retried while it fails, so a provider that is down when obgw
// starts delays no start; its keys are fetched and refreshed by go-oidc.
type RelyingParty struct {
	cfg Config

	flight   singleflight.Group // one discovery at a time, no lock held
	mu       sync.Mutex         // guards the fields below
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	lastTry  time.Time
	lastErr  error
}

// New returns a RelyingParty for cfg, which must Validate.
func New(cfg Config) (*RelyingParty, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.CustomerClaim == "" {
		cfg.CustomerClaim = "sub"
	}
	if cfg.ClockSkew == 0 {
		cfg.ClockSkew = time.Minute
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(cfg.PaymentACRValues) == 0 {
		cfg.PaymentACRValues = cfg.ACRValues
	}
	return &RelyingParty{cfg: cfg}, nil
}

// Errors of a login. ErrUnavailable: the provider could not be reached or
// failed (the PSU may try again later); ErrRefused: its answer does not
// authenticate the PSU for this login (wrong client, issuer, nonce or acr,
// expired, forged, or the provider refused the code).
var (
	ErrUnavailable = errors.New("the identity provider is unavailable")
	ErrRefused     = errors.New("the identity provider's answer was refused")
	// ErrMisconfigured comes with ErrUnavailable when the provider
	// refuses obgw itself (its client id, secret or key).
	ErrMisconfigured = errors.New("obgw's registration at the identity provider is refused")
)

// rediscoverAfter bounds how often a failed discovery is retried.
const rediscoverAfter = time.Second

// discoveryTimeout bounds one discovery, whoever waits for it.
const discoveryTimeout = 10 * time.Second

// discover returns the provider, discovering it on first use. Concurrent
// callers share one discovery (singleflight, no lock held while it runs,
// on a context no caller's departure cancels); a failure is remembered for
// rediscoverAfter, counted from when it ended.
func (rp *RelyingParty) discover(ctx context.Context) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	rp.mu.Lock()
	p, v, lastErr, lastTry := rp.provider, rp.verifier, rp.lastErr, rp.lastTry
	rp.mu.Unlock()
	if p != nil {
		return p, v, nil
	}
	if lastErr != nil && time.Since(lastTry) < rediscoverAfter {
		return nil, nil, lastErr
	}
	_, err, _ := rp.flight.Do("discover", func() (any, error) {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discoveryTimeout)
		defer cancel()
		p, err := rp.newProvider(dctx)
		rp.mu.Lock()
		defer rp.mu.Unlock()
		rp.lastTry, rp.lastErr = time.Now(), err
		if err == nil {
			skew := rp.cfg.ClockSkew
			rp.provider = p
			rp.verifier = p.Verifier(&oidc.Config{
				ClientID: rp.cfg.ClientID,
				// go-oidc compares expiry with Now exactly: a token
				// expired by less than the skew is still accepted.
				Now: func() time.Time { return rp.cfg.Now().Add(-skew) },
			})
		}
		return nil, err
	})
	if err != nil {
		return nil, nil, err
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.provider, rp.verifier, nil
}

// Check discovers the provider now, or says why it cannot, so that a wrong
// issuer is told when obgw starts rather than at a PSU's first login.
func (rp *RelyingParty) Check(ctx context.Context) error {
	_, _, err := rp.discover(ctx)
	return err
}

// Issuer is the provider's issuer URL, as configured.
func (rp *RelyingParty) Issuer() string { return rp.cfg.Issuer }

// newProvider discovers the provider and checks that its endpoints are
// https (or on a loopback host, as the issuer may be).
func (rp *RelyingParty) newProvider(ctx context.Context) (*oidc.Provider, error) {
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, rp.cfg.HTTPClient), rp.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery at %s: %v", ErrUnavailable, rp.cfg.Issuer, err)
	}
	for _, ep := range []string{p.Endpoint().AuthURL, p.Endpoint().TokenURL} {
		u, err := url.Parse(ep)
		if err != nil || !(u.Scheme == "https" || u.Scheme == "http" && loopback(u.Hostname())) {
			return nil, fmt.Errorf("%w: discovery at %s: endpoint %q is not https", ErrUnavailable, rp.cfg.Issuer, ep)
		}
	}
	return p, nil
}

// Login is one authorization request's secrets: State goes to the
// provider and comes back, Nonce comes back in the ID token, Verifier
// proves at the token endpoint that the code's requester is the one
// exchanging it. All three are single-use random values of the caller's.
type Login struct {
	State, Nonce, Verifier string
	// Started is when the login was started: the PSU must have
	// authenticated at the provider since (auth_time), so a session the
	// provider kept from before is no SCA for this flow.
	Started time.Time
	// Payment: the login authorises payments (PaymentACRValues apply).
	Payment bool
	// App: the TPP prefers authentication in the bank's app (AppParams).
	App bool
}

// AuthURL returns the provider's authorization URL for login, answering
// at redirectURL.
func (rp *RelyingParty) AuthURL(ctx context.Context, redirectURL string, l Login) (string, error) {
	p, _, err := rp.discover(ctx)
	if err != nil {
		return "", err
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(l.Verifier), oidc.Nonce(l.Nonce)}
	// SCA for this flow, not a session the provider kept: the PSU logs in
	// now (prompt=login), and auth_time says when (max_age=0).
	params := url.Values{"prompt": {"login"}, "max_age": {"0"}}
	if acr := rp.acr(l); len(acr) > 0 {
		params.Set("acr_values", strings.Join(acr, " "))
	}
	if l.App {
		for k, vs := range rp.cfg.AppParams {
			params[k] = vs
		}
	}
	for k, vs := range params {
		for _, v := range vs {
			opts = append(opts, oauth2.SetAuthURLParam(k, v))
		}
	}
	return rp.oauth(p, redirectURL).AuthCodeURL(l.State, opts...), nil
}

func (rp *RelyingParty) acr(l Login) []string {
	if l.Payment {
		return rp.cfg.PaymentACRValues
	}
	return rp.cfg.ACRValues
}

func (rp *RelyingParty) oauth(p *oidc.Provider, redirectURL string) *oauth2.Config {
	ep := p.Endpoint()
	if rp.cfg.ClientSecret == "" {
		// private_key_jwt: the assertion goes in the form, with client_id.
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{
		ClientID: rp.cfg.ClientID, ClientSecret: rp.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: redirectURL, Scopes: append([]string{oidc.ScopeOpenID}, rp.cfg.Scopes...),
	}
}

// Identity is who the provider authenticated.
type Identity struct {
	// Customer is the CustomerClaim's value.
	Customer string
	// ACR is the token's acr claim.
	ACR string
}

// Identify exchanges the code the provider answered login with, verifies
// the ID token (signature, issuer, audience, expiry within the clock
// skew, issue time not in the future, nonce, acr) and returns the
// identity it names. Errors wrap ErrUnavailable or ErrRefused and never
// hold the token.
func (rp *RelyingParty) Identify(ctx context.Context, redirectURL, code string, l Login) (Identity, error) {
	p, verifier, err := rp.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx = oidc.ClientContext(ctx, rp.cfg.HTTPClient)
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(l.Verifier)}
	if rp.cfg.ClientSecret == "" {
		assertion, err := rp.cfg.PrivateKey.assertion(rp.cfg.ClientID, rp.cfg.Issuer, p.Endpoint().TokenURL, rp.cfg.Now())
		if err != nil {
			return Identity{}, fmt.Errorf("%w: client assertion: %v", ErrUnavailable, err)
		}
		opts = append(opts, oauth2.SetAuthURLParam("client_assertion_type", clientAssertionType),
			oauth2.SetAuthURLParam("client_assertion", assertion))
	}
	tok, err := rp.oauth(p, redirectURL).Exchange(ctx, code, opts...)
	if err != nil {
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.Response == nil {
			return Identity{}, fmt.Errorf("%w: token endpoint: %v", ErrUnavailable, scrub(err))
		}
		// Only the status and the OAuth error code: the body may echo
		// what was sent.
		status := re.Response.StatusCode
		switch {
		case status >= 500 || status == http.StatusTooManyRequests:
			return Identity{}, fmt.Errorf("%w: token endpoint: HTTP %d %s", ErrUnavailable, status, re.ErrorCode)
		case re.ErrorCode == "invalid_client" || re.ErrorCode == "unauthorized_client":
			// obgw's own registration (a rotated secret, a wrong key):
			// no PSU can log in until the bank mends it.
			return Identity{}, fmt.Errorf("%w: %w: token endpoint refused obgw's client authentication: HTTP %d %s",
				ErrUnavailable, ErrMisconfigured, status, re.ErrorCode)
		}
		return Identity{}, fmt.Errorf("%w: token endpoint: HTTP %d %s", ErrRefused, status, re.ErrorCode)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fmt.Errorf("%w: the token response has no id_token", ErrRefused)
	}
	who, err := rp.verify(ctx, verifier, raw, l)
	if err != nil && strings.Contains(err.Error(), "fetching keys") {
		// The provider's keys could not be fetched: an outage, not a
		// forged token.
		return Identity{}, fmt.Errorf("%w: ID token keys: %v", ErrUnavailable, err)
	}
	return who, err
}

// verify checks an ID token for login l: go-oidc checks its signature
// against the provider's keys, its issuer, audience and expiry (within
// the clock skew); this, its issue time, nonce and acr.
func (rp *RelyingParty) verify(ctx context.Context, verifier *oidc.IDTokenVerifier, raw string, l Login) (Identity, error) {
	idt, err := verifier.Verify(ctx, raw)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: ID token: %w", ErrRefused, err)
	}
	// Several audiences: the token is for obgw only if it says so (azp);
	// an azp names the one party it was issued to.
	var azp struct {
		AZP string `json:"azp"`
	}
	_ = idt.Claims(&azp)
	if (len(idt.Audience) > 1 || azp.AZP != "") && azp.AZP != rp.cfg.ClientID {
		return Identity{}, fmt.Errorf("%w: ID token: azp %q is not obgw's client id", ErrRefused, azp.AZP)
	}
	if idt.IssuedAt.After(rp.cfg.Now().Add(rp.cfg.ClockSkew)) {
		return Identity{}, fmt.Errorf("%w: ID token issued in the future (iat %s)", ErrRefused, idt.IssuedAt.UTC().Format(time.RFC3339))
	}
	if l.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(l.Nonce)) != 1 {
		return Identity{}, fmt.Errorf("%w: ID token: the nonce is not this login's", ErrRefused)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("%w: ID token claims: %v", ErrRefused, err)
	}
	authTime, present := claims["auth_time"].(float64)
	if !present {
		// The provider's gap, in words an operator acts on.
		return Identity{}, fmt.Errorf("%w: ID token: no auth_time claim. obgw asks every login with max_age=0 (and prompt=login), "+
			"and OpenID Connect Core (3.1.2.1) then requires the provider to return auth_time, which tells that the PSU authenticated "+
			"during this login; this provider left it out (Dex does): configure it to return auth_time, or use a provider that does", ErrRefused)
	}
	if l.Started.IsZero() || authTime == 0 || time.Unix(int64(authTime), 0).Before(l.Started.Add(-rp.cfg.ClockSkew).Truncate(time.Second)) {
		return Identity{}, fmt.Errorf("%w: ID token: the PSU did not authenticate during this login (auth_time %d)", ErrRefused, int64(authTime))
	}
	acr, _ := claims["acr"].(string)
	if want := rp.acr(l); len(want) > 0 && !slices.Contains(want, acr) {
		return Identity{}, fmt.Errorf("%w: ID token: acr %q is not one of %q", ErrRefused, acr, want)
	}
	customer, _ := claims[rp.cfg.CustomerClaim].(string)
	if customer == "" {
		return Identity{}, fmt.Errorf("%w: ID token: no %q claim", ErrRefused, rp.cfg.CustomerClaim)
	}
	return Identity{Customer: customer, ACR: acr}, nil
}

// scrub drops a URL error's query (the code travels in the form body,
// but a provider's redirect could echo it) from err's text.
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		if perr == nil {
			u.RawQuery = ""
			return fmt.Errorf("%s %s: %v", ue.Op, u.Redacted(), ue.Err)
		}
	}
	return err
}
