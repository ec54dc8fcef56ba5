package testidp

import (
	"net/http"
	"net/url"
	"slices"
	"time"
)

// serveHTTP is the provider's front door, where the test controls act
// before op or the login page see a request: an outage answers 503, the
// clock offset is fixed for the request (clock.go), and authorization
// requests are recorded for LastAuthorize, and the ID token override
// (SetIDTokenIssuer, SetIDTokenAudience) is read once for a token request.
func (p *Provider) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if p.down.Load() {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "testidp: identity provider is down (SetDown)", http.StatusServiceUnavailable)
		return
	}
	if r.URL.Path == p.authPath {
		// op parses the same form again; ParseForm keeps what it read.
		if err := r.ParseForm(); err == nil {
			p.recordAuthorize(r.Form)
		}
	}
	r = r.WithContext(withClockOffset(r.Context(), time.Duration(p.clockOffset.Load())))
	if r.URL.Path == p.tokenPath {
		if o := p.idTokenOverride(); !o.none() {
			p.serveTokenOverridden(w, r, o)
			return
		}
	}
	p.handler.ServeHTTP(w, r)
}

// SetDown makes every endpoint, the login page included, answer 503 while
// down is true, as during an outage of the identity provider.
// Authorization requests made while down are not recorded.
func (p *Provider) SetDown(down bool) { p.down.Store(down) }

// SetClockOffset shifts the provider's clock by d for the ID tokens it
// issues from now on: iat, exp and auth_time. A negative d of more than
// the ID token lifetime (10 minutes), e.g. -2*time.Hour, issues tokens
// that are already expired; a positive d issues tokens from the future.
// Access token lifetimes at the userinfo endpoint are not shifted.
func (p *Provider) SetClockOffset(d time.Duration) { p.clockOffset.Store(int64(d)) }

// SetIDTokenIssuer makes the ID tokens the provider issues from now on
// carry iss as their issuer instead of Issuer(), signed with the
// provider's key as ever: a token that the provider's keys vouch for but
// that names another provider. "" restores Issuer().
func (p *Provider) SetIDTokenIssuer(iss string) {
	p.mu.Lock()
	p.override.iss = iss
	p.mu.Unlock()
}

// SetIDTokenAudience makes the ID tokens the provider issues from now on
// be issued to aud instead of the client that exchanges the code: aud is
// their audience, aud[0] their azp and client_id. They are signed with the
// provider's key as ever. No aud restores the exchanging client.
func (p *Provider) SetIDTokenAudience(aud ...string) {
	p.mu.Lock()
	p.override.aud = slices.Clone(aud)
	p.mu.Unlock()
}

// SetIDTokenWithoutAuthTime makes the ID tokens the provider issues from
// now on lack auth_time, as a provider that ignores max_age does (Dex's
// latest release): signed with the provider's key as ever. false restores
// it.
func (p *Provider) SetIDTokenWithoutAuthTime(without bool) {
	p.mu.Lock()
	p.override.noAuthTime = without
	p.mu.Unlock()
}

func (p *Provider) idTokenOverride() idTokenOverride {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.override
}

// LastAuthorize is the query (with form parameters, for a POSTed request)
// of the most recent request to the authorization endpoint, valid or not,
// or nil before the first: it shows what the relying party asked for, e.g.
// acr_values and login_hint. The caller may keep and modify it.
func (p *Provider) LastAuthorize() url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return cloneValues(p.lastAuthorize)
}

func (p *Provider) recordAuthorize(v url.Values) {
	v = cloneValues(v)
	p.mu.Lock()
	p.lastAuthorize = v
	p.mu.Unlock()
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}
