package sca

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/pathid"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// The PSU's login at the bank's identity provider (Config.IdP), the SCA
// page's identification outside the sandbox's mock: the page's "Log in"
// sends the browser to the provider with a fresh state, nonce and PKCE
// verifier kept on the flow; the provider sends it back to Callback,
// which takes that login once, checks the ID token (idp.Identify), looks
// the customer up by the configured claim and binds the flow to the
// browser, as the mock's identification does. The rest of the flow is the
// same page. The PSU's page of consents logs in the same way
// (psu_login.go), through the same callback.

// CallbackPath is the provider's redirect URI's path: one fixed path, as
// providers register redirect URIs exactly; the state names the flow.
const CallbackPath = "/v1/sca/callback"

// loginCookiePrefix names the cookie that binds a login to the browser
// that started it: one per flow (loginCookieName), so logins of two flows
// in one browser do not displace each other. It is SameSite=Lax, as the
// provider's redirect back is a cross-site navigation that a Strict cookie
// would miss, and its path is "/", as the callback's public path may
// differ from the request's (a base path, a configured redirect URL); the
// callback is a GET that changes nothing without the single-use state.
const loginCookiePrefix = "obgw_sca_login_"

// loginCookieName is the login cookie's name for flow id.
func loginCookieName(flowID string) string {
	sum := sha256.Sum256([]byte(flowID))
	return loginCookiePrefix + hex.EncodeToString(sum[:6])
}

// setLoginCookie binds flow id's login to this browser until expires.
func setLoginCookie(w http.ResponseWriter, flowID, value string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name: loginCookieName(flowID), Value: value, Path: "/", MaxAge: int(time.Until(expires).Seconds()) + 1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
}

// fromLoginBrowser reports whether r carries flow id's login cookie whose
// SHA-256 is hash.
func fromLoginBrowser(r *http.Request, flowID, hash string) (string, bool) {
	c, err := r.Cookie(loginCookieName(flowID))
	if err != nil || len(c.Value) != tokenLength || hash == "" {
		return "", false
	}
	return c.Value, subtle.ConstantTimeCompare([]byte(sessionHash(c.Value)), []byte(hash)) == 1
}

// loginSecrets is what a flow keeps of its pending login (SCAFlow.Login).
type loginSecrets struct {
	Nonce    string `json:"nonce,omitempty"`
	Verifier string `json:"verifier,omitempty"`
	// Cookie is the SHA-256 of the browser's login cookie.
	Cookie string `json:"cookie"`
	// Started is when the login was started (Unix seconds).
	Started int64 `json:"started,omitempty"`
}

// Outcomes of a login at the identity provider.
var (
	outcomeLoginCancelled = bgerror.New(bgerror.CodeConsentInvalid, "The PSU cancelled the login at the bank")
	outcomeLoginRefused   = bgerror.New(bgerror.CodeConsentInvalid, "The PSU's login at the bank could not be verified; start again")
	outcomeLoginReplayed  = bgerror.New(bgerror.CodeConsentInvalid, "The bank's login answer was used already or is not this flow's; start again")
	outcomeUnknownPSU     = bgerror.New(bgerror.CodeConsentInvalid, "The PSU who logged in is not a customer of the bank who can act here")
	outcomeIdPUnavailable = bgerror.New(bgerror.CodeServiceUnavailable, "The bank's login service is unavailable; try again later")
)

// payingPurpose reports whether a flow authorises payments (or their
// cancellation): the identity provider's payment acr applies.
func payingPurpose(f *store.SCAFlow) bool {
	return f.Purpose == store.PurposePayment || f.Purpose == store.PurposeBasket || f.Purpose == store.PurposeCancellation
}

// callbackURL is the redirect URI the provider answers at: the configured
// one, or this request's host and base path.
func (s *Service) callbackURL(r *http.Request) string {
	if s.cfg.IdPRedirectURL != "" {
		return s.cfg.IdPRedirectURL
	}
	return "https://" + r.Host + respond.Under(r, CallbackPath)
}

// login sends the PSU's browser to the provider. Each login counts as an
// identification attempt, so a flow cannot be restarted without bound; a
// new login replaces the pending one.
func (s *Service) login(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	ctx := r.Context()
	n, err := s.cfg.Store.CountSCAFlowAttempt(ctx, f.ID)
	switch {
	case errors.Is(err, store.ErrConflict):
		s.replay(w, r, f.ID)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case n > MaxIdentifyAttempts:
		s.fail(w, r, f, outcomeTooMany, func(ctx context.Context) { s.cfg.Payments.Reject(ctx, f) })
		return
	}
	state, err1 := randomToken()
	nonce, err2 := randomToken()
	cookie, err3 := randomToken()
	if err1 != nil || err2 != nil || err3 != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	l := idp.Login{State: f.ID + "." + state, Nonce: nonce, Verifier: oauth2.GenerateVerifier(),
		Payment: payingPurpose(f), App: f.AppPreferred, Started: s.cfg.Now()}
	to, err := s.cfg.IdP.AuthURL(ctx, s.callbackURL(r), l)
	if err != nil {
		s.log.Warn("SCA login: identity provider unavailable", "error", err)
		s.idpUnavailable(w, r, f)
		return
	}
	secrets, _ := json.Marshal(loginSecrets{Nonce: l.Nonce, Verifier: l.Verifier, Cookie: sessionHash(cookie), Started: l.Started.Unix()})
	f.LoginState, f.Login = sessionHash(l.State), string(secrets)
	if !s.save(w, r, f) {
		return
	}
	setLoginCookie(w, f.ID, cookie, f.ExpiresAt)
	toProvider(w, to)
}

// toProvider answers a page that moves the browser on to the provider's
// authorization URL. Not a redirect: browsers hold a form post's
// redirects to the page's CSP form-action, which names only this bank and
// the TPP, and a provider (a broker in front of BankID) may redirect on
// to other origins.
func toProvider(w http.ResponseWriter, authURL string) {
	pageHeaders(w)
	_ = movingOnTemplate.Execute(w, movingOn{Href: template.URL(authURL), Text: "Continue to the bank's login."})
}

// pageHeaders are the headers of the login's small pages (moving on, the
// provider's outage): never cached, no script, never framed, no Referer.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
}

// movingOn is a page that moves the browser on to Href.
type movingOn struct {
	Href template.URL
	Text string
}

var movingOnTemplate = template.Must(template.New("moving-on").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={{.Href}}">
<title>Bank authorisation</title></head>
<body><p>{{.Text}} <a href="{{.Href}}" id="continue">Continue</a></p></body></html>
`))

// continueTo answers a page that moves the browser on to href, a path of
// this backend, under the request's base path. The browser arrived from
// the provider: a redirect would keep the navigation cross-site, without
// the flow's SameSite=Strict cookie; a page of ours that moves on does not.
func continueTo(w http.ResponseWriter, r *http.Request, href string) {
	pageHeaders(w)
	_ = movingOnTemplate.Execute(w, movingOn{Href: template.URL(href), Text: "You are logged in."})
}

// Callback takes the provider's answer to a login: once (the state is
// single-use), only in the browser that started it (its login cookie),
// only while the flow is pending. The PSU's browser is then bound to the
// flow and continues on the flow's page; any refusal ends the flow with
// the failure redirect.
func (s *Service) Callback(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	if _, ok := s.ident.(providerIdentifier); !ok {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	state := q.Get("state")
	if sealed, ok := strings.CutPrefix(state, psuStatePrefix); ok {
		s.psuCallback(w, r, sealed)
		return
	}
	flowID, _, ok := strings.Cut(state, ".")
	if !ok || !pathid.Plausible(flowID) || len(state) > 2*pathid.MaxBytes {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	f, err := s.cfg.Store.GetSCAFlow(ctx, flowID)
	switch {
	case errors.Is(err, store.ErrNotFound), err == nil && f.Purpose == PurposePSUConsents:
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	var stored loginSecrets
	_ = json.Unmarshal([]byte(f.Login), &stored)
	cookie, mine := fromLoginBrowser(r, f.ID, stored.Cookie)
	switch {
	case f.State != store.FlowPending && mine:
		s.replay(w, r, f.ID)
		return
	case f.State != store.FlowPending:
		scaError(w, errFinished, http.StatusGone)
		return
	case !mine:
		// Not the browser that logged in (the TPP, say, holding a copy
		// of the link): nothing changes.
		scaError(w, errOtherBrowser, http.StatusForbidden)
		return
	case !s.cfg.Now().Before(f.ExpiresAt):
		s.loginFailed(w, r, f, outcomeTooLong)
		return
	}
	taken, err := s.cfg.Store.TakeSCAFlowLogin(ctx, f.ID, sessionHash(state))
	if err != nil {
		if errors.Is(err, store.ErrConflict) {
			// A state answered before, or replaced by a newer login.
			s.loginFailed(w, r, f, outcomeLoginReplayed)
			return
		}
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	// The login this state started, as the take found it.
	var secrets loginSecrets
	if json.Unmarshal([]byte(taken), &secrets) != nil || secrets.Cookie != stored.Cookie {
		s.loginFailed(w, r, f, outcomeLoginReplayed)
		return
	}
	f.LoginState = ""
	// The browser stays known to the callback (its cookie stays): its
	// replay of this answer ends the flow, a stranger's changes nothing.
	kept, _ := json.Marshal(loginSecrets{Cookie: secrets.Cookie})
	f.Login = string(kept)
	c, outcome := s.identifyAtProvider(w, r, store.OwnerOf(s.cfg.Sandbox, f.TPP), q, idp.Login{State: state, Nonce: secrets.Nonce, Verifier: secrets.Verifier,
		Payment: payingPurpose(f), App: f.AppPreferred, Started: time.Unix(secrets.Started, 0)})
	switch {
	case outcome == outcomeIdPUnavailable:
		s.idpUnavailable(w, r, f)
		return
	case outcome != nil:
		s.loginFailed(w, r, f, outcome)
		return
	case c == nil:
		return // answered (the store failed)
	}
	secret, err := bindBrowser(f, cookie)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f.CustomerID = c.ID
	if !s.save(w, r, f) {
		return
	}
	s.observeSCA(StepIdentified, "")
	setFlowCookie(w, r, f, secret, int(FlowLifetime.Seconds()))
	continueTo(w, r, scaHref(r, f.ID))
}

// identifyAtProvider reads the provider's answer q to login: the customer
// of owner's sandbox (store.OwnerOf; the bank's own: "")
// it authenticated, or the outcome that refuses it (outcomeIdPUnavailable
// for an outage). Neither (nil, nil): the store failed, and w says so.
func (s *Service) identifyAtProvider(w http.ResponseWriter, r *http.Request, owner string, q url.Values, l idp.Login) (*store.Customer, *bgerror.Error) {
	switch e := q.Get("error"); {
	case e == "access_denied":
		return nil, outcomeLoginCancelled
	case e == "temporarily_unavailable", e == "server_error":
		s.log.Warn("SCA login: identity provider answered an error", "error", e)
		return nil, outcomeIdPUnavailable
	case e != "":
		s.log.Info("SCA login: identity provider refused the login", "error", e)
		return nil, outcomeLoginRefused
	}
	who, err := s.cfg.IdP.Identify(r.Context(), s.callbackURL(r), q.Get("code"), l)
	switch {
	case errors.Is(err, idp.ErrMisconfigured):
		s.log.Error("SCA login: the identity provider refuses obgw's client registration", "error", err)
		return nil, outcomeIdPUnavailable
	case errors.Is(err, idp.ErrUnavailable):
		s.log.Warn("SCA login: identity provider unavailable", "error", err)
		return nil, outcomeIdPUnavailable
	case err != nil:
		s.log.Info("SCA login refused", "error", err)
		return nil, outcomeLoginRefused
	}
	var c *store.Customer
	err = store.ErrNotFound
	if pathid.Plausible(who.Customer) {
		c, err = s.cfg.Store.GetCustomerByNumber(r.Context(), owner, who.Customer)
	}
	switch {
	case err != nil && !errors.Is(err, store.ErrNotFound):
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return nil, nil
	case err != nil || c.Type != store.CustomerPrivate:
		return nil, outcomeUnknownPSU
	}
	return c, nil
}

// loginFailed ends a flow whose login failed with the failure redirect,
// its payments rejected.
func (s *Service) loginFailed(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, outcome *bgerror.Error) {
	s.fail(w, r, f, outcome, func(ctx context.Context) { s.cfg.Payments.Reject(ctx, f) })
}

// idpUnavailable ends the flow as the provider's outage does: the TPP gets
// the failure redirect, and the PSU a page that says what happened, with
// the way back to the TPP.
func (s *Service) idpUnavailable(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), actTimeout)
	defer cancel()
	q := failure(outcomeIdPUnavailable)
	done := *f
	done.State, done.Outcome = store.FlowFailed, q.Encode()
	switch err := s.cfg.Store.UpdateSCAFlow(ctx, &done, store.FlowPending); {
	case errors.Is(err, store.ErrConflict):
		s.replay(w, r, f.ID)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	s.observeEnd(store.FlowFailed, outcomeIdPUnavailable)
	s.cfg.Payments.Reject(ctx, f)
	back, err := url.Parse(f.RedirectURI)
	if err != nil {
		scaError(w, outcomeIdPUnavailable.Text+".", http.StatusServiceUnavailable)
		return
	}
	bq := back.Query()
	for k, vs := range q {
		bq[k] = append(bq[k], vs...)
	}
	back.RawQuery = bq.Encode()
	pageHeaders(w)
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = unavailableTemplate.Execute(w, struct{ TPP, Back string }{tppName(f), back.String()})
}

var unavailableTemplate = template.Must(template.New("unavailable").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login unavailable – Bank authorisation</title></head>
<body><h1>The bank's login is unavailable</h1>
<p id="error">The bank's login service cannot be reached right now, so this authorisation has ended. Nothing was shared or approved.</p>
<p><a href="{{.Back}}" id="back">Return to {{.TPP}}</a> and try again later.</p></body></html>
`))
