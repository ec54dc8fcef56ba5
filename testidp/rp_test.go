package testidp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/net/html"
	"golang.org/x/oauth2"
)

// The relying party and browser the tests drive the provider with: go-oidc
// and x/oauth2 as obgw uses them, and a plain HTTP client with a cookie jar
// that reads and posts the login form as a browser would.

const (
	testClientID     = "obgw"
	testClientSecret = "s3cret"
	kariID           = "15038540189"
	olaID            = "22079140086"
	acrHigh          = "urn:obgw:acr:high"
	acrSubstantial   = "urn:obgw:acr:substantial"
)

var testUsers = []User{
	{NationalID: kariID, Password: "kari-pw", Name: "Kari Nordmann", ACR: acrHigh},
	{NationalID: olaID, Password: "ola-pw", Name: "Ola Nordmann", ACR: acrSubstantial},
}

func passwordOf(nationalID string) string {
	for _, u := range testUsers {
		if u.NationalID == nationalID {
			return u.Password
		}
	}
	return ""
}

// testRP is a relying party: its callback is an httptest server that
// captures what the provider redirects back with, by state.
type testRP struct {
	server      *httptest.Server
	redirectURI string

	mu        sync.Mutex
	callbacks map[string]url.Values // by state
}

func newTestRP(t *testing.T) *testRP {
	t.Helper()
	rp := &testRP{callbacks: make(map[string]url.Values)}
	rp.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		rp.mu.Lock()
		rp.callbacks[q.Get("state")] = q
		rp.mu.Unlock()
		fmt.Fprintln(w, "relying party: callback received")
	}))
	t.Cleanup(rp.server.Close)
	rp.redirectURI = rp.server.URL + "/callback"
	return rp
}

// callback is what the provider sent back for state, or nil.
func (rp *testRP) callback(state string) url.Values {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.callbacks[state]
}

// startProvider starts a provider with the test users and one client
// redirecting to rp, stopped when the test ends.
func startProvider(t *testing.T, rp *testRP) *Provider {
	t.Helper()
	p, err := Start(Config{
		Users:   testUsers,
		Clients: []Client{{ID: testClientID, Secret: testClientSecret, RedirectURIs: []string{rp.redirectURI}}},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// flow is one authorization code flow of a relying party, up to the code.
type flow struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
	provider *oidc.Provider
	state    string
	nonce    string
	pkce     string
}

func newFlow(t *testing.T, p *Provider, rp *testRP, style oauth2.AuthStyle) *flow {
	t.Helper()
	provider, err := oidc.NewProvider(context.Background(), p.Issuer())
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	endpoint := provider.Endpoint()
	endpoint.AuthStyle = style
	return &flow{
		oauth: oauth2.Config{
			ClientID:     testClientID,
			ClientSecret: testClientSecret,
			Endpoint:     endpoint,
			RedirectURL:  rp.redirectURI,
			Scopes:       []string{oidc.ScopeOpenID, "profile"},
		},
		verifier: provider.Verifier(&oidc.Config{ClientID: testClientID}),
		provider: provider,
		state:    oauth2.GenerateVerifier(),
		nonce:    oauth2.GenerateVerifier(),
		pkce:     oauth2.GenerateVerifier(),
	}
}

// authURL is the authorization request, with PKCE S256, state, nonce and
// any extra parameters.
func (f *flow) authURL(extra ...oauth2.AuthCodeOption) string {
	opts := append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.pkce), oidc.Nonce(f.nonce)}, extra...)
	return f.oauth.AuthCodeURL(f.state, opts...)
}

// exchange redeems code and returns the token response and its raw ID token.
func (f *flow) exchange(code string) (*oauth2.Token, string, error) {
	tok, err := f.oauth.Exchange(context.Background(), code, oauth2.VerifierOption(f.pkce))
	if err != nil {
		return nil, "", err
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return nil, "", errors.New("token response has no id_token")
	}
	return tok, raw, nil
}

// idClaims are the ID token claims the tests look at.
type idClaims struct {
	Subject  string   `json:"sub"`
	Issuer   string   `json:"iss"`
	Audience []string `json:"aud"`
	Nonce    string   `json:"nonce"`
	ACR      string   `json:"acr"`
	NNIN     string   `json:"nnin"`
	Name     string   `json:"name"`
	IssuedAt int64    `json:"iat"`
	Expiry   int64    `json:"exp"`
	AuthTime int64    `json:"auth_time"`
}

// browser is a user agent: it follows redirects, keeps cookies, and fills
// in the login form by its element ids.
type browser struct {
	client *http.Client
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{client: &http.Client{Jar: jar}}
}

// page is a fetched page: where the browser ended up, and what it shows.
type page struct {
	status int
	url    *url.URL
	body   string
}

func (b *browser) get(rawURL string) (*page, error) {
	resp, err := b.client.Get(rawURL)
	if err != nil {
		return nil, err
	}
	return readPage(resp)
}

func readPage(resp *http.Response) (*page, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &page{status: resp.StatusCode, url: resp.Request.URL, body: string(body)}, nil
}

// login fills the login form on pg with username and password and submits
// it, as a browser does: to the form's action, with its hidden fields.
func (b *browser) login(pg *page, username, password string) (*page, error) {
	form, err := parseLoginForm(pg.body)
	if err != nil {
		return nil, err
	}
	form.values.Set("username", username)
	form.values.Set("password", password)
	action, err := pg.url.Parse(form.action)
	if err != nil {
		return nil, err
	}
	resp, err := b.client.PostForm(action.String(), form.values)
	if err != nil {
		return nil, err
	}
	return readPage(resp)
}

type loginForm struct {
	action string
	values url.Values
}

// parseLoginForm reads the login form: its action and hidden fields, and
// checks that the elements browser tests rely on are there by id.
func parseLoginForm(body string) (*loginForm, error) {
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	f := &loginForm{values: url.Values{}}
	ids := map[string]string{} // id -> "tag/type/name"
	var inForm bool
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := func(k string) string {
				for _, a := range n.Attr {
					if a.Key == k {
						return a.Val
					}
				}
				return ""
			}
			if id := attr("id"); id != "" {
				ids[id] = n.Data + "/" + attr("type") + "/" + attr("name")
			}
			if n.Data == "form" {
				f.action = attr("action")
				inForm = true
			}
			if n.Data == "input" && inForm && attr("type") == "hidden" {
				f.values.Set(attr("name"), attr("value"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	want := map[string]string{
		"username": "input//username",
		"password": "input/password/password",
		"submit":   "button/submit/",
	}
	for id, w := range want {
		if ids[id] != w {
			return nil, fmt.Errorf("login page: element #%s is %q, want %q", id, ids[id], w)
		}
	}
	if f.action == "" {
		return nil, errors.New("login page: no form action")
	}
	return f, nil
}

// codeFor runs the browser part of f as the user: authorization request,
// login page, login, back to the relying party. It returns the code.
func codeFor(t *testing.T, rp *testRP, f *flow, nationalID string, extra ...oauth2.AuthCodeOption) string {
	t.Helper()
	b := newBrowser(t)
	pg, err := b.get(f.authURL(extra...))
	if err != nil {
		t.Fatalf("authorization request: %v", err)
	}
	if pg.status != http.StatusOK || pg.url.Path != loginPath {
		t.Fatalf("authorization request ended at %s with %d, want the login page: %s", pg.url, pg.status, pg.body)
	}
	pg, err = b.login(pg, nationalID, passwordOf(nationalID))
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if pg.status != http.StatusOK || pg.url.String() != rp.redirectURI+"?"+pg.url.RawQuery {
		t.Fatalf("login ended at %s with %d, want the relying party's callback: %s", pg.url, pg.status, pg.body)
	}
	cb := rp.callback(f.state)
	if cb == nil {
		t.Fatalf("relying party got no callback for state %q", f.state)
	}
	if cb.Get("error") != "" || cb.Get("code") == "" {
		t.Fatalf("callback %v, want a code", cb)
	}
	return cb.Get("code")
}
