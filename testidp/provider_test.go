package testidp

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

func TestCodeFlow(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	tests := []struct {
		name       string
		style      oauth2.AuthStyle
		nationalID string
		wantACR    string
		wantName   string
	}{
		{"auto-detect, high", oauth2.AuthStyleAutoDetect, kariID, acrHigh, "Kari Nordmann"},
		{"client_secret_basic, substantial", oauth2.AuthStyleInHeader, olaID, acrSubstantial, "Ola Nordmann"},
		{"client_secret_post, high", oauth2.AuthStyleInParams, kariID, acrHigh, "Kari Nordmann"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlow(t, p, rp, tt.style)
			code := codeFor(t, rp, f, tt.nationalID)
			tok, raw, err := f.exchange(code)
			if err != nil {
				t.Fatalf("exchange: %v", err)
			}
			if _, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.RS256}); err != nil {
				t.Errorf("ID token is not RS256-signed: %v", err)
			}
			idt, err := f.verifier.Verify(context.Background(), raw)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			var c idClaims
			if err := idt.Claims(&c); err != nil {
				t.Fatal(err)
			}
			if c.NNIN != tt.nationalID {
				t.Errorf("nnin = %q, want %q", c.NNIN, tt.nationalID)
			}
			if c.Subject != Subject(tt.nationalID) || c.Subject == "" || c.Subject == tt.nationalID {
				t.Errorf("sub = %q, want the opaque %q", c.Subject, Subject(tt.nationalID))
			}
			if c.ACR != tt.wantACR {
				t.Errorf("acr = %q, want %q", c.ACR, tt.wantACR)
			}
			if c.Nonce != f.nonce {
				t.Errorf("nonce = %q, want %q", c.Nonce, f.nonce)
			}
			if c.Name != tt.wantName {
				t.Errorf("name = %q, want %q", c.Name, tt.wantName)
			}
			if c.Issuer != p.Issuer() || len(c.Audience) != 1 || c.Audience[0] != testClientID {
				t.Errorf("iss %q aud %v, want %q [%s]", c.Issuer, c.Audience, p.Issuer(), testClientID)
			}
			now := time.Now().Unix()
			if c.IssuedAt < now-60 || c.IssuedAt > now+1 || c.AuthTime < now-60 || c.AuthTime > c.IssuedAt {
				t.Errorf("iat %d auth_time %d, want recent, auth_time <= iat (now %d)", c.IssuedAt, c.AuthTime, now)
			}
			if d := c.Expiry - c.IssuedAt; d != int64(idTokenLifetime/time.Second) {
				t.Errorf("exp - iat = %ds, want %v", d, idTokenLifetime)
			}

			// The userinfo endpoint says the same about the user.
			info, err := f.provider.UserInfo(context.Background(), oauth2.StaticTokenSource(tok))
			if err != nil {
				t.Fatalf("userinfo: %v", err)
			}
			var ic idClaims
			if err := info.Claims(&ic); err != nil {
				t.Fatal(err)
			}
			if ic.Subject != c.Subject || ic.NNIN != tt.nationalID || ic.Name != tt.wantName {
				t.Errorf("userinfo %+v, want sub %q nnin %q name %q", ic, c.Subject, tt.nationalID, tt.wantName)
			}
		})
	}
}

func TestSubjectIsStable(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	var subs []string
	for range 2 {
		f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
		_, raw, err := f.exchange(codeFor(t, rp, f, olaID))
		if err != nil {
			t.Fatal(err)
		}
		idt, err := f.verifier.Verify(context.Background(), raw)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, idt.Subject)
	}
	if subs[0] != subs[1] || subs[0] == Subject(kariID) {
		t.Errorf("subs of two logins %q, want equal and not Kari's", subs)
	}
}

func TestWrongCredentialsRefused(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	b := newBrowser(t)
	login, err := b.get(f.authURL())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, user, password string }{
		{"wrong password", kariID, "not-kari-pw"},
		{"another user's password", kariID, passwordOf(olaID)},
		{"unknown user", "01010100000", "x"},
		{"empty password", kariID, ""},
	} {
		pg, err := b.login(login, tt.user, tt.password)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if pg.url.Path != loginPath || !strings.Contains(pg.body, `id="error"`) {
			t.Errorf("%s: ended at %s (%d), want the login form with an error: %s", tt.name, pg.url, pg.status, pg.body)
		}
		if _, err := parseLoginForm(pg.body); err != nil {
			t.Errorf("%s: the form shown again is not the login form: %v", tt.name, err)
		}
		if cb := rp.callback(f.state); cb != nil {
			t.Fatalf("%s: relying party got a callback %v", tt.name, cb)
		}
	}

	// The same authorization request still completes with the right password.
	pg, err := b.login(login, kariID, passwordOf(kariID))
	if err != nil {
		t.Fatal(err)
	}
	if cb := rp.callback(f.state); cb == nil || cb.Get("code") == "" {
		t.Fatalf("after a retry with the right password: ended at %s, callback %v", pg.url, cb)
	}

	// A completed authorization request takes no second login.
	pg, err = b.login(login, olaID, passwordOf(olaID))
	if err != nil {
		t.Fatal(err)
	}
	if pg.status != http.StatusBadRequest {
		t.Errorf("second login on a used request: %d, want 400", pg.status)
	}
}

func TestCodeWorksOnce(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	code := codeFor(t, rp, f, kariID)
	if _, _, err := f.exchange(code); err != nil {
		t.Fatalf("first exchange: %v", err)
	}
	_, _, err := f.exchange(code)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("second exchange: %v, want invalid_grant", err)
	}
}

func TestTokenRequestRefused(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	tests := []struct {
		name   string
		change func(f *flow)
		want   string
	}{
		{"wrong client secret", func(f *flow) { f.oauth.ClientSecret = "wrong" }, "invalid_client"},
		{"wrong PKCE verifier", func(f *flow) { f.pkce = oauth2.GenerateVerifier() }, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlow(t, p, rp, oauth2.AuthStyleInHeader)
			code := codeFor(t, rp, f, olaID)
			tt.change(f)
			_, _, err := f.exchange(code)
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) || re.ErrorCode != tt.want {
				t.Errorf("exchange: %v, want %s", err, tt.want)
			}
		})
	}
}

func TestAuthorizationRequestRefused(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	tests := []struct {
		name    string
		authURL func(f *flow) string
		want    string
	}{
		{"no PKCE", func(f *flow) string { return f.oauth.AuthCodeURL(f.state, oidc.Nonce(f.nonce)) }, "invalid_request"},
		{"PKCE plain", func(f *flow) string {
			return f.oauth.AuthCodeURL(f.state, oauth2.SetAuthURLParam("code_challenge", f.pkce),
				oauth2.SetAuthURLParam("code_challenge_method", "plain"))
		}, "invalid_request"},
		{"prompt=none", func(f *flow) string { return f.authURL(oauth2.SetAuthURLParam("prompt", "none")) }, "login_required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
			if _, err := newBrowser(t).get(tt.authURL(f)); err != nil {
				t.Fatal(err)
			}
			if cb := rp.callback(f.state); cb.Get("error") != tt.want || cb.Get("code") != "" {
				t.Errorf("callback %v, want error %s", cb, tt.want)
			}
		})
	}

	t.Run("unregistered redirect URI", func(t *testing.T) {
		f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
		f.oauth.RedirectURL = rp.server.URL + "/elsewhere"
		pg, err := newBrowser(t).get(f.authURL())
		if err != nil {
			t.Fatal(err)
		}
		if pg.url.Host == rp.server.Listener.Addr().String() || pg.status != http.StatusBadRequest {
			t.Errorf("ended at %s with %d, want a 400 at the provider", pg.url, pg.status)
		}
	})
}

func TestSetDown(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	b := newBrowser(t)
	login, err := b.get(f.authURL())
	if err != nil {
		t.Fatal(err)
	}

	p.SetDown(true)
	_, err = oidc.NewProvider(context.Background(), p.Issuer())
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("discovery while down: %v, want a 503", err)
	}
	for _, path := range []string{"/.well-known/openid-configuration", "/keys", "/authorize", "/oauth/token", loginPath} {
		resp, err := http.Get(p.Issuer() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s while down: %d, want 503", path, resp.StatusCode)
		}
	}
	pg, err := b.login(login, kariID, passwordOf(kariID))
	if err != nil {
		t.Fatal(err)
	}
	if pg.status != http.StatusServiceUnavailable {
		t.Errorf("login while down: %d, want 503", pg.status)
	}

	// Back up, the flow started before the outage completes.
	p.SetDown(false)
	if _, err := oidc.NewProvider(context.Background(), p.Issuer()); err != nil {
		t.Fatalf("discovery after the outage: %v", err)
	}
	if _, err := b.login(login, kariID, passwordOf(kariID)); err != nil {
		t.Fatal(err)
	}
	cb := rp.callback(f.state)
	if cb.Get("code") == "" {
		t.Fatalf("no code after the outage: %v", cb)
	}
	if _, _, err := f.exchange(cb.Get("code")); err != nil {
		t.Errorf("exchange after the outage: %v", err)
	}
}

func TestSetClockOffset(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	tests := []struct {
		name        string
		offset      time.Duration
		wantExpired bool
	}{
		{"two hours back: expired", -2 * time.Hour, true},
		{"a minute back: still valid", -time.Minute, false},
		{"an hour ahead: valid, issued in the future", time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
			code := codeFor(t, rp, f, kariID)
			p.SetClockOffset(tt.offset)
			defer p.SetClockOffset(0)
			before := time.Now()
			tok, raw, err := f.exchange(code)
			if err != nil {
				t.Fatalf("exchange: %v", err)
			}
			_, err = f.verifier.Verify(context.Background(), raw)
			var expired *oidc.TokenExpiredError
			if got := errors.As(err, &expired); got != tt.wantExpired || (!got && err != nil) {
				t.Fatalf("verify: %v, want expired %v", err, tt.wantExpired)
			}

			// The token is genuine otherwise, with every time shifted.
			unchecked := f.provider.Verifier(&oidc.Config{ClientID: testClientID, SkipExpiryCheck: true})
			idt, err := unchecked.Verify(context.Background(), raw)
			if err != nil {
				t.Fatalf("verify without expiry check: %v", err)
			}
			var c idClaims
			if err := idt.Claims(&c); err != nil {
				t.Fatal(err)
			}
			shifted := before.Add(tt.offset).Unix()
			if c.IssuedAt < shifted-1 || c.IssuedAt > shifted+5 {
				t.Errorf("iat %d, want about %d", c.IssuedAt, shifted)
			}
			if c.Expiry-c.IssuedAt != int64(idTokenLifetime/time.Second) {
				t.Errorf("exp - iat = %ds, want %v", c.Expiry-c.IssuedAt, idTokenLifetime)
			}
			if c.AuthTime < shifted-60 || c.AuthTime > c.IssuedAt {
				t.Errorf("auth_time %d, want shifted too, at most iat %d", c.AuthTime, c.IssuedAt)
			}
			if c.NNIN != kariID || c.Nonce != f.nonce {
				t.Errorf("nnin %q nonce %q", c.NNIN, c.Nonce)
			}
			// expires_in is the access token's true lifetime, unshifted.
			if left := time.Until(tok.Expiry); left < accessTokenLifetime-time.Minute || left > accessTokenLifetime {
				t.Errorf("access token expires in %v, want about %v", left, accessTokenLifetime)
			}
		})
	}
}

// TestIDTokenOverride: SetIDTokenIssuer and SetIDTokenAudience make the
// provider issue ID tokens, signed with its key, that name another issuer
// or another client: a relying party's verifier refuses them for that
// reason alone, and the rest of the token is as ever.
func TestIDTokenOverride(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	tests := []struct {
		name      string
		set       func()
		wantErr   string // go-oidc's refusal
		wantIss   string
		wantAud   []string
		wantAZP   string
		skipCheck oidc.Config
	}{
		{"another issuer", func() { p.SetIDTokenIssuer("https://other-idp.example") }, "different provider",
			"https://other-idp.example", []string{testClientID}, testClientID, oidc.Config{ClientID: testClientID, SkipIssuerCheck: true}},
		{"another audience", func() { p.SetIDTokenAudience("other") }, "audience",
			p.Issuer(), []string{"other"}, "other", oidc.Config{SkipClientIDCheck: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
			code := codeFor(t, rp, f, kariID)
			tt.set()
			defer p.SetIDTokenIssuer("")
			defer p.SetIDTokenAudience()
			_, raw, err := f.exchange(code)
			if err != nil {
				t.Fatalf("exchange: %v", err)
			}
			if _, err := f.verifier.Verify(context.Background(), raw); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("verify: %v, want refused for its %s", err, tt.wantErr)
			}
			// Signed by the provider's key, with every other claim intact.
			idt, err := f.provider.Verifier(&tt.skipCheck).Verify(context.Background(), raw)
			if err != nil {
				t.Fatalf("verify without that check: %v", err)
			}
			var c idClaims
			var azp struct {
				AZP string `json:"azp"`
			}
			if err := idt.Claims(&c); err != nil || idt.Claims(&azp) != nil {
				t.Fatal(err)
			}
			if c.Issuer != tt.wantIss || !slices.Equal(c.Audience, tt.wantAud) || azp.AZP != tt.wantAZP {
				t.Errorf("iss %q aud %v azp %q, want %q %v %q", c.Issuer, c.Audience, azp.AZP, tt.wantIss, tt.wantAud, tt.wantAZP)
			}
			if c.NNIN != kariID || c.Nonce != f.nonce || c.ACR != acrHigh || c.Expiry-c.IssuedAt != int64(idTokenLifetime/time.Second) {
				t.Errorf("claims %+v: want Kari's, with the flow's nonce", c)
			}
		})
	}
	// Restored: the next token is the client's, from this issuer.
	f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	if _, raw, err := f.exchange(codeFor(t, rp, f, kariID)); err != nil {
		t.Fatal(err)
	} else if _, err := f.verifier.Verify(context.Background(), raw); err != nil {
		t.Fatalf("after the override: %v", err)
	}
}

func TestLastAuthorize(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	if got := p.LastAuthorize(); got != nil {
		t.Errorf("before any request: %v, want nil", got)
	}
	f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	codeFor(t, rp, f, kariID,
		oauth2.SetAuthURLParam("acr_values", acrHigh),
		oauth2.SetAuthURLParam("login_hint", "BankID-app"))
	got := p.LastAuthorize()
	for k, want := range map[string]string{
		"acr_values":            acrHigh,
		"login_hint":            "BankID-app",
		"client_id":             testClientID,
		"state":                 f.state,
		"nonce":                 f.nonce,
		"code_challenge_method": "S256",
		"redirect_uri":          rp.redirectURI,
	} {
		if got.Get(k) != want {
			t.Errorf("LastAuthorize %s = %q, want %q", k, got.Get(k), want)
		}
	}
	got.Set("acr_values", "changed")
	if p.LastAuthorize().Get("acr_values") != acrHigh {
		t.Error("LastAuthorize hands out its own record")
	}

	// A request without them replaces the record.
	f = newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
	codeFor(t, rp, f, olaID)
	if got := p.LastAuthorize(); got.Has("acr_values") || got.Has("login_hint") || got.Get("state") != f.state {
		t.Errorf("after a plain request: %v", got)
	}
}

// TestParallelFlows runs logins of both users at once; under -race it
// checks the provider's locking.
func TestParallelFlows(t *testing.T) {
	rp := newTestRP(t)
	p := startProvider(t, rp)
	for i := range 8 {
		nationalID := []string{kariID, olaID}[i%2]
		t.Run(fmt.Sprintf("%d-%s", i, nationalID), func(t *testing.T) {
			t.Parallel()
			f := newFlow(t, p, rp, oauth2.AuthStyleAutoDetect)
			_, raw, err := f.exchange(codeFor(t, rp, f, nationalID))
			if err != nil {
				t.Fatalf("exchange: %v", err)
			}
			idt, err := f.verifier.Verify(context.Background(), raw)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			var c idClaims
			if err := idt.Claims(&c); err != nil || c.NNIN != nationalID || c.Nonce != f.nonce {
				t.Errorf("claims %+v (%v), want nnin %s nonce %s", c, err, nationalID, f.nonce)
			}
		})
	}
}

func TestConfigRefused(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edKey, _, _ := ed25519.GenerateKey(rand.Reader)
	good := Client{ID: "c", Secret: "s", RedirectURIs: []string{"https://localhost:8443/cb"}}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"short national id", Config{Users: []User{{NationalID: "1503854018", Password: "p"}}}, "11 digits"},
		{"letters in national id", Config{Users: []User{{NationalID: "1503854018x", Password: "p"}}}, "11 digits"},
		{"user twice", Config{Users: []User{{NationalID: kariID, Password: "p"}, {NationalID: kariID, Password: "q"}}}, "twice"},
		{"no password", Config{Users: []User{{NationalID: kariID}}}, "no password"},
		{"client twice", Config{Clients: []Client{good, good}}, "twice"},
		{"no client id", Config{Clients: []Client{{Secret: "s", RedirectURIs: good.RedirectURIs}}}, "no id"},
		{"no secret", Config{Clients: []Client{{ID: "c", RedirectURIs: good.RedirectURIs}}}, "no secret"},
		{"secret and key", Config{Clients: []Client{{ID: "c", Secret: "s", Key: &ecKey.PublicKey, RedirectURIs: good.RedirectURIs}}}, "one authentication method"},
		{"Ed25519 key", Config{Clients: []Client{{ID: "c", Key: edKey, RedirectURIs: good.RedirectURIs}}}, "cannot verify"},
		{"no redirect", Config{Clients: []Client{{ID: "c", Secret: "s"}}}, "no redirect"},
		{"relative redirect", Config{Clients: []Client{{ID: "c", Secret: "s", RedirectURIs: []string{"/cb"}}}}, "not an absolute"},
		{"custom scheme", Config{Clients: []Client{{ID: "c", Secret: "s", RedirectURIs: []string{"app://cb"}}}}, "not an absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(tt.cfg)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestListen(t *testing.T) {
	p, err := Listen("127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasPrefix(p.Issuer(), "http://127.0.0.1:") || strings.HasSuffix(p.Issuer(), ":0") || strings.HasSuffix(p.Issuer(), "/") {
		t.Errorf("issuer %q, want http://127.0.0.1:<the chosen port>", p.Issuer())
	}
	if _, err := oidc.NewProvider(context.Background(), p.Issuer()); err != nil {
		t.Errorf("discovery: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := Listen(":0", Config{}); err == nil || !strings.Contains(err.Error(), "no host") {
		t.Errorf("Listen without host: %v, want refused", err)
	}
}
