package idp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"

	"github.com/obgw/obgw/testidp"
)

// The relying party against a real OpenID provider (testidp, zitadel's
// certified op): real discovery, keys, codes, PKCE and ID tokens.

const (
	kari, ola   = "15038540189", "22079140086"
	substantial = "urn:obgw:acr:substantial"
	high        = "urn:obgw:acr:high"
)

// idpFixture is a provider with Kari (high) and Ola (substantial), the
// clients obgw and other (and any extra ones), and a redirect URI that
// records codes.
type idpFixture struct {
	p        *testidp.Provider
	redirect string
}

func newProvider(t *testing.T, extra ...testidp.Client) *idpFixture {
	t.Helper()
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "back at the relying party")
	}))
	t.Cleanup(cb.Close)
	redirect := cb.URL + "/v1/sca/callback"
	p, err := testidp.Start(testidp.Config{
		Users: []testidp.User{
			{NationalID: kari, Password: "test", Name: "Kari Nordmann", ACR: high},
			{NationalID: ola, Password: "test", Name: "Ola Nordmann", ACR: substantial},
		},
		Clients: append([]testidp.Client{
			{ID: "obgw", Secret: "obgw-secret", RedirectURIs: []string{redirect}},
			{ID: "other", Secret: "other-secret", RedirectURIs: []string{redirect}},
		}, withRedirect(extra, redirect)...),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &idpFixture{p: p, redirect: redirect}
}

func withRedirect(clients []testidp.Client, redirect string) []testidp.Client {
	for i := range clients {
		clients[i].RedirectURIs = []string{redirect}
	}
	return clients
}

func (f *idpFixture) rp(t *testing.T, edit func(*Config)) *RelyingParty {
	t.Helper()
	cfg := Config{Issuer: f.p.Issuer(), ClientID: "obgw", ClientSecret: "obgw-secret", CustomerClaim: "nnin",
		ACRValues: []string{substantial, high}, PaymentACRValues: []string{high},
		AppParams: url.Values{"login_hint": {"app"}}}
	if edit != nil {
		edit(&cfg)
	}
	rp, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rp
}

func newLogin(payment bool) Login {
	return Login{State: "flow." + oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier(),
		Payment: payment, Started: time.Now()}
}

var authRequestRe = regexp.MustCompile(`name="authRequestID" value="([^"]+)"`)

// logIn plays the PSU's browser: it opens authURL, logs in as user at the
// provider's page and returns the query the provider redirects back with.
func logIn(t *testing.T, f *idpFixture, authURL, user string) url.Values {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	var back url.Values
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), f.redirect) {
			back = req.URL.Query()
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if back != nil {
		return back
	}
	m := authRequestRe.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no login form at the provider: %d %s", resp.StatusCode, page)
	}
	resp, err = c.PostForm(f.p.Issuer()+"/login", url.Values{"authRequestID": {string(m[1])}, "username": {user}, "password": {"test"}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if back == nil {
		t.Fatalf("the provider did not redirect back: %d %s", resp.StatusCode, page)
	}
	return back
}

// login runs a whole login of user and returns Identify's answer.
func login(t *testing.T, f *idpFixture, rp *RelyingParty, user string, l Login) (Identity, error) {
	t.Helper()
	ctx := context.Background()
	to, err := rp.AuthURL(ctx, f.redirect, l)
	if err != nil {
		t.Fatal(err)
	}
	back := logIn(t, f, to, user)
	if back.Get("state") != l.State || back.Get("code") == "" {
		t.Fatalf("redirect back %v: want the state and a code", back)
	}
	return rp.Identify(ctx, f.redirect, back.Get("code"), l)
}

func TestLoginIdentifiesTheCustomer(t *testing.T) {
	f := newProvider(t)
	rp := f.rp(t, nil)
	l := newLogin(false)
	l.App = true
	who, err := login(t, f, rp, kari, l)
	if err != nil || who.Customer != kari || who.ACR != high {
		t.Fatalf("Identify: %+v %v, want Kari with %s", who, err, high)
	}
	asked := f.p.LastAuthorize()
	for k, want := range map[string]string{
		"client_id": "obgw", "response_type": "code", "code_challenge_method": "S256", "nonce": l.Nonce,
		"acr_values": substantial + " " + high, "login_hint": "app", "redirect_uri": f.redirect,
		"prompt": "login", "max_age": "0",
	} {
		if asked.Get(k) != want {
			t.Errorf("authorization request %s = %q, want %q", k, asked.Get(k), want)
		}
	}
	if asked.Get("code_challenge") == "" || asked.Get("code_challenge") == l.Verifier {
		t.Errorf("code_challenge %q: want the S256 of the verifier", asked.Get("code_challenge"))
	}
	// Without the app preference, no login_hint; a payment asks for its
	// own acr.
	l = newLogin(true)
	if _, err := login(t, f, rp, kari, l); err != nil {
		t.Fatal(err)
	}
	if asked := f.p.LastAuthorize(); asked.Has("login_hint") || asked.Get("acr_values") != high {
		t.Fatalf("payment login asked %v: want acr_values %s and no login_hint", asked, high)
	}
}

// TestLoginRefusals: every way an answer can fail to authenticate the PSU
// for this login is ErrRefused; an outage is ErrUnavailable.
func TestLoginRefusals(t *testing.T) {
	f := newProvider(t)
	rp := f.rp(t, nil)
	ctx := context.Background()
	refused := func(name string, who Identity, err error) {
		t.Helper()
		if !errors.Is(err, ErrRefused) || who.Customer != "" {
			t.Errorf("%s: %+v %v, want ErrRefused", name, who, err)
		}
	}

	// A payment needs high: Ola's substantial login is refused for it,
	// and accepted for account access.
	who, err := login(t, f, rp, ola, newLogin(true))
	refused("payment with a weaker acr", who, err)
	if who, err := login(t, f, rp, ola, newLogin(false)); err != nil || who.Customer != ola {
		t.Fatalf("account access with substantial: %+v %v", who, err)
	}

	// The nonce the token carries is not the login's (the authorization
	// request was altered, or the answer belongs to another login).
	l := newLogin(false)
	to, _ := rp.AuthURL(ctx, f.redirect, l)
	back := logIn(t, f, to, kari)
	tampered := l
	tampered.Nonce = oauth2.GenerateVerifier()
	who, err = rp.Identify(ctx, f.redirect, back.Get("code"), tampered)
	refused("another nonce", who, err)

	// PKCE: a code exchanged with another verifier (a stolen code).
	l = newLogin(false)
	to, _ = rp.AuthURL(ctx, f.redirect, l)
	back = logIn(t, f, to, kari)
	stolen := l
	stolen.Verifier = oauth2.GenerateVerifier()
	who, err = rp.Identify(ctx, f.redirect, back.Get("code"), stolen)
	refused("another PKCE verifier", who, err)

	// A code is good once.
	l = newLogin(false)
	to, _ = rp.AuthURL(ctx, f.redirect, l)
	back = logIn(t, f, to, kari)
	if _, err := rp.Identify(ctx, f.redirect, back.Get("code"), l); err != nil {
		t.Fatal(err)
	}
	who, err = rp.Identify(ctx, f.redirect, back.Get("code"), l)
	refused("a code used twice", who, err)

	// An expired ID token (the provider's clock two hours behind).
	f.p.SetClockOffset(-2 * time.Hour)
	who, err = login(t, f, rp, kari, newLogin(false))
	refused("an expired token", who, err)
	if err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired token: %v, want it named", err)
	}
	f.p.SetClockOffset(0)

	// A token for another client, and one from another provider.
	_, verifier, err := rp.discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l = newLogin(false)
	raw := foreignToken(t, f, "other", "other-secret", l)
	who, err = rp.verify(ctx, verifier, raw, l)
	refused("another client's token", who, err)
	if err == nil || !strings.Contains(err.Error(), "audience") {
		t.Errorf("another client's token: %v, want the audience named", err)
	}
	g := newProvider(t)
	raw = foreignToken(t, g, "obgw", "obgw-secret", l)
	who, err = rp.verify(ctx, verifier, raw, l)
	refused("another provider's token", who, err)

	// A session the provider kept is no SCA for this flow: a token whose
	// auth_time is before the login started is refused.
	l = newLogin(false)
	to, _ = rp.AuthURL(ctx, f.redirect, l)
	back = logIn(t, f, to, kari)
	late := l
	late.Started = time.Now().Add(5 * time.Minute)
	who, err = rp.Identify(ctx, f.redirect, back.Get("code"), late)
	refused("an authentication from before the login", who, err)
	if err == nil || !strings.Contains(err.Error(), "auth_time") {
		t.Errorf("old authentication: %v, want auth_time named", err)
	}

	// (issue 32, 5) A provider that leaves auth_time out: refused, the
	// error naming the claim and what the provider must do.
	f.p.SetIDTokenWithoutAuthTime(true)
	who, err = login(t, f, rp, kari, newLogin(false))
	refused("no auth_time", who, err)
	if err == nil || !strings.Contains(err.Error(), "no auth_time claim") || !strings.Contains(err.Error(), "max_age=0") || !strings.Contains(err.Error(), "configure it to return auth_time") {
		t.Errorf("no auth_time: %v, want the claim and the provider's gap named", err)
	}
	f.p.SetIDTokenWithoutAuthTime(false)

	// A claim missing: the customer cannot be named.
	norp := f.rp(t, func(c *Config) { c.CustomerClaim = "no_such_claim" })
	who, err = login(t, f, norp, kari, newLogin(false))
	refused("no customer claim", who, err)

	// The provider down: discovery and the token endpoint.
	l = newLogin(false)
	to, _ = rp.AuthURL(ctx, f.redirect, l)
	back = logIn(t, f, to, kari)
	f.p.SetDown(true)
	if _, err := rp.Identify(ctx, f.redirect, back.Get("code"), l); !errors.Is(err, ErrUnavailable) {
		t.Errorf("token endpoint down: %v, want ErrUnavailable", err)
	}
	// obgw's own registration refused (a wrong secret): unavailable, and
	// said so, not a refusal of the PSU.
	f.p.SetDown(false)
	l = newLogin(false)
	wrong := f.rp(t, func(c *Config) { c.ClientSecret = "not-the-secret" })
	to, _ = wrong.AuthURL(ctx, f.redirect, l)
	back = logIn(t, f, to, kari)
	if _, err := wrong.Identify(ctx, f.redirect, back.Get("code"), l); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrMisconfigured) {
		t.Errorf("wrong client secret: %v, want ErrUnavailable and ErrMisconfigured", err)
	}
	f.p.SetDown(true)
	fresh := f.rp(t, nil)
	if _, err := fresh.AuthURL(ctx, f.redirect, newLogin(false)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("discovery down: %v, want ErrUnavailable", err)
	}
	f.p.SetDown(false)
	time.Sleep(rediscoverAfter)
	if _, err := fresh.AuthURL(ctx, f.redirect, newLogin(false)); err != nil {
		t.Errorf("discovery after the outage: %v", err)
	}
}

// foreignToken logs Kari in at f as client id (not through rp) and returns
// the raw ID token that client got.
func foreignToken(t *testing.T, f *idpFixture, id, secret string, l Login) string {
	t.Helper()
	ctx := context.Background()
	other, err := New(Config{Issuer: f.p.Issuer(), ClientID: id, ClientSecret: secret, CustomerClaim: "nnin"})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := other.discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to, _ := other.AuthURL(ctx, f.redirect, l)
	back := logIn(t, f, to, kari)
	tok, err := other.oauth(p, f.redirect).Exchange(ctx, back.Get("code"), oauth2.VerifierOption(l.Verifier))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		t.Fatal("no id_token")
	}
	return raw
}

// TestAppParamsCannotReplaceTheBinding: app_param may not replace the
// parameters that bind the request to the flow.
func TestAppParamsCannotReplaceTheBinding(t *testing.T) {
	for _, name := range []string{"state", "nonce", "redirect_uri", "client_id", "code_challenge", "prompt", "max_age"} {
		cfg := Config{Issuer: "https://idp.example", ClientID: "obgw", ClientSecret: "s", AppParams: url.Values{name: {"x"}}}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("app_param %s: %v", name, err)
		}
	}
}

// TestClientAssertion: a private_key_jwt assertion is signed with the
// client's key and names the client, the issuer and the token endpoint,
// briefly.
func TestClientAssertion(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	ck, err := ParseClientKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "k1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a, err := ck.assertion("obgw", "https://idp.example", "https://idp.example/token", now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.ParseSigned(a, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Headers[0].KeyID != "k1" {
		t.Fatalf("kid %q", tok.Headers[0].KeyID)
	}
	var c jwt.Claims
	if err := tok.Claims(&key.PublicKey, &c); err != nil {
		t.Fatal(err)
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: "obgw", Subject: "obgw", AnyAudience: jwt.Audience{"https://idp.example/token"}, Time: now}, 0); err != nil {
		t.Fatal(err)
	}
	if !c.Audience.Contains("https://idp.example") {
		t.Fatalf("audience %v: want the issuer too", c.Audience)
	}
	if c.Expiry.Time().Sub(now) > assertionLifetime || c.ID == "" {
		t.Fatalf("claims %+v: want a fresh id and at most %v", c, assertionLifetime)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err := tok.Claims(&other.PublicKey, &c); err == nil {
		t.Fatal("the assertion verifies with another key")
	}
	for _, bad := range []string{"", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"} {
		if _, err := ParseClientKey([]byte(bad), ""); err == nil {
			t.Errorf("ParseClientKey(%q) accepted", bad)
		}
	}
}

// TestClockSkew: the provider's clock may be off from obgw's by up to the
// skew (one minute by default) either way: a token issued that far in the
// future, or expired that long ago, is accepted; beyond it, refused.
func TestClockSkew(t *testing.T) {
	f := newProvider(t)
	for _, c := range []struct {
		name string
		// provider shifts the provider's clock (iat, exp, auth_time);
		// ours shifts obgw's (Config.Now): ahead by the token's 10
		// minutes of validity and more, the token has expired.
		provider, ours time.Duration
		refused        string // "" for accepted
	}{
		{"issued 30s in the future", 30 * time.Second, 0, ""},
		{"issued 90s in the future", 90 * time.Second, 0, "issued in the future"},
		{"expired 30s ago", 0, 10*time.Minute + 30*time.Second, ""},
		{"expired 90s ago", 0, 10*time.Minute + 90*time.Second, "expired"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.p.SetClockOffset(c.provider)
			defer f.p.SetClockOffset(0)
			rp := f.rp(t, func(cfg *Config) {
				cfg.Now = func() time.Time { return time.Now().Add(c.ours) }
			})
			who, err := login(t, f, rp, kari, newLogin(false))
			switch {
			case c.refused == "" && (err != nil || who.Customer != kari):
				t.Fatalf("Identify: %+v %v, want Kari accepted within the skew", who, err)
			case c.refused != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("Identify: %+v %v, want ErrRefused saying %q", who, err, c.refused)
			}
		})
	}
}

// TestPrivateKeyJWT: obgw authenticates at the token endpoint with a
// client assertion signed by its key (private_key_jwt), which the
// provider verifies with op's own JWT profile verifier against the public
// key registered for obgw; an assertion signed by another key, or naming
// another key, is refused.
func TestPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	f := newProvider(t, testidp.Client{ID: "obgw-key", Key: &key.PublicKey, KeyID: "k1"})
	keyed := func(key *ecdsa.PrivateKey, kid string) *RelyingParty {
		der, _ := x509.MarshalPKCS8PrivateKey(key)
		ck, err := ParseClientKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), kid)
		if err != nil {
			t.Fatal(err)
		}
		return f.rp(t, func(c *Config) { c.ClientID, c.ClientSecret, c.PrivateKey = "obgw-key", "", ck })
	}
	who, err := login(t, f, keyed(key, "k1"), kari, newLogin(false))
	if err != nil || who.Customer != kari {
		t.Fatalf("Identify with private_key_jwt: %+v %v, want Kari", who, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, c := range []struct {
		name string
		key  *ecdsa.PrivateKey
		kid  string
	}{{"another key", other, "k1"}, {"another kid", key, "k2"}} {
		// op answers a failed assertion invalid_grant, which obgw cannot
		// tell from a bad code: refused, and no identity.
		who, err := login(t, f, keyed(c.key, c.kid), kari, newLogin(false))
		if err == nil || who.Customer != "" {
			t.Errorf("%s: %+v %v, want refused", c.name, who, err)
		}
	}
}
