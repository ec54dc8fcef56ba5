package backend

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
)

// The PSU's login at the bank's identity provider (Config.IdP), the SCA
// page's identification outside the sandbox's mock: the page's "Log in"
// sends the browser to the provider with a fresh state, nonce and PKCE
// verifier kept on the flow; the provider sends it back to scaCallback,
// which takes that login once, checks the ID token (idp.Identify), looks
// the customer up by the configured claim and binds the flow to the
// browser, as the mock's identification does. The rest of the flow is the
// same page.

// callbackPath is the provider's redirect URI's path: one fixed path, as
// providers register redirect URIs exactly; the state names the flow.
const callbackPath = "/v1/sca/callback"

// loginCookie binds a login to the browser that started it: the callback
// wants it. It is SameSite=Lax, as the provider's redirect back is a
// cross-site navigation that a Strict cookie would miss; the callback is
// a GET that changes nothing without the single-use state.
const loginCookie = "obgw_sca_login"

// loginSecrets is what a flow keeps of its pending login (SCAFlow.Login).
type loginSecrets struct {
	Nonce    string `json:"nonce"`
	Verifier string `json:"verifier"`
	// Cookie is the SHA-256 of the browser's loginCookie.
	Cookie string `json:"cookie"`
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
	return f.Purpose == PurposePayment || f.Purpose == PurposeBasket || f.Purpose == PurposeCancellation
}

// callbackURL is the redirect URI the provider answers at: the configured
// one, or this request's host and base path.
func (s *Server) callbackURL(r *http.Request) string {
	if s.cfg.IdPRedirectURL != "" {
		return s.cfg.IdPRedirectURL
	}
	return "https://" + r.Host + basePath(r.Context()) + callbackPath
}

// login sends the PSU's browser to the provider. Each login counts as an
// identification attempt, so a flow cannot be restarted without bound; a
// new login replaces the pending one.
func (s *Server) login(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	ctx := r.Context()
	n, err := s.cfg.Store.CountSCAFlowAttempt(ctx, f.ID)
	switch {
	case errors.Is(err, store.ErrConflict):
		s.replay(w, r, f.ID)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case n > maxIdentifyAttempts:
		s.fail(w, r, f, outcomeTooMany, func(ctx context.Context) { s.rejectPayments(ctx, f) })
		return
	}
	state, err1 := randomToken()
	nonce, err2 := randomToken()
	cookie, err3 := randomToken()
	if err1 != nil || err2 != nil || err3 != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	l := idp.Login{State: f.ID + "." + state, Nonce: nonce, Verifier: oauth2.GenerateVerifier(), Payment: payingPurpose(f), App: f.AppPreferred}
	to, err := s.cfg.IdP.AuthURL(ctx, s.callbackURL(r), l)
	if err != nil {
		s.log.Warn("SCA login: identity provider unavailable", "error", err)
		s.idpUnavailable(w, r, f)
		return
	}
	secrets, _ := json.Marshal(loginSecrets{Nonce: l.Nonce, Verifier: l.Verifier, Cookie: sessionHash(cookie)})
	f.LoginState, f.Login = sessionHash(l.State), string(secrets)
	if !s.save(w, r, f) {
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: cookie, Path: callbackPath, MaxAge: int(time.Until(f.ExpiresAt).Seconds()) + 1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// scaCallback takes the provider's answer to a login: once (the state is
// single-use), only in the browser that started it (loginCookie), only
// while the flow is pending. The PSU's browser is then bound to the flow
// and continues on the flow's page; any refusal ends the flow with the
// failure redirect.
func (s *Server) scaCallback(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Strict-Transport-Security", scaHSTS)
	if s.cfg.IdP == nil {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	state := q.Get("state")
	flowID, _, ok := strings.Cut(state, ".")
	if !ok || !plausibleValue(flowID) || len(state) > 2*MaxIDBytes {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	f, err := s.cfg.Store.GetSCAFlow(ctx, flowID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	psuPage := f.Purpose == PurposePSUConsents
	var secrets loginSecrets
	_ = json.Unmarshal([]byte(f.Login), &secrets)
	cookie, err := r.Cookie(loginCookie)
	mine := err == nil && len(cookie.Value) == tokenLength && secrets.Cookie != "" &&
		subtle.ConstantTimeCompare([]byte(sessionHash(cookie.Value)), []byte(secrets.Cookie)) == 1
	switch {
	case f.State != store.FlowPending && mine && !psuPage:
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
	if _, err := s.cfg.Store.TakeSCAFlowLogin(ctx, f.ID, sessionHash(state)); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// A state answered before, or replaced by a newer login.
			s.loginFailed(w, r, f, outcomeLoginReplayed)
			return
		}
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f.LoginState, f.Login = "", ""
	switch e := q.Get("error"); {
	case e == "access_denied":
		s.loginFailed(w, r, f, outcomeLoginCancelled)
		return
	case e == "temporarily_unavailable", e == "server_error":
		s.log.Warn("SCA login: identity provider answered an error", "error", e)
		s.idpUnavailable(w, r, f)
		return
	case e != "":
		s.log.Info("SCA login: identity provider refused the login", "error", e)
		s.loginFailed(w, r, f, outcomeLoginRefused)
		return
	}
	who, err := s.cfg.IdP.Identify(ctx, s.callbackURL(r), q.Get("code"),
		idp.Login{State: state, Nonce: secrets.Nonce, Verifier: secrets.Verifier, Payment: payingPurpose(f), App: f.AppPreferred})
	switch {
	case errors.Is(err, idp.ErrUnavailable):
		s.log.Warn("SCA login: identity provider unavailable", "error", err)
		s.idpUnavailable(w, r, f)
		return
	case err != nil:
		s.log.Info("SCA login refused", "error", err)
		s.loginFailed(w, r, f, outcomeLoginRefused)
		return
	}
	var c *store.Customer
	err = store.ErrNotFound
	if plausibleValue(who.Customer) {
		c, err = s.cfg.Store.GetCustomerByNumber(ctx, who.Customer)
	}
	switch {
	case err != nil && !errors.Is(err, store.ErrNotFound):
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case err != nil || c.Type != store.CustomerPrivate:
		s.loginFailed(w, r, f, outcomeUnknownPSU)
		return
	}
	if psuPage {
		s.psuLoggedIn(w, r, f, c, secrets)
		return
	}
	secret, err := bindBrowser(f, cookie.Value)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f.CustomerID = c.ID
	// The browser stays known to the callback (its loginCookie stays):
	// its replay of this answer ends the flow, a stranger's changes
	// nothing.
	kept, _ := json.Marshal(loginSecrets{Cookie: secrets.Cookie})
	f.Login = string(kept)
	if !s.save(w, r, f) {
		return
	}
	setFlowCookie(w, f, secret, int(FlowLifetime.Seconds()))
	// The browser arrived here from the provider: a redirect on to the
	// flow's page would still be a cross-site navigation, without the
	// flow's SameSite=Strict cookie. A page of ours that moves on is not.
	continueTo(w, scaHref(f.ID))
}

// continueTo answers a page that moves the browser on to href.
func continueTo(w http.ResponseWriter, href string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	_ = continueTemplate.Execute(w, struct{ Href string }{href})
}

// loginFailed ends a flow whose login failed: the TPP's flow with the
// failure redirect (its payments rejected), the PSU's page of consents
// with a page saying so (it has no TPP to return to).
func (s *Server) loginFailed(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, outcome *bgerror.Error) {
	if f.Purpose != PurposePSUConsents {
		s.fail(w, r, f, outcome, func(ctx context.Context) { s.rejectPayments(ctx, f) })
		return
	}
	done := *f
	done.State = store.FlowFailed
	if err := s.cfg.Store.UpdateSCAFlow(r.Context(), &done, store.FlowPending); err != nil && !errors.Is(err, store.ErrConflict) {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	scaError(w, outcome.Text+". Open the page of your consents again.", http.StatusForbidden)
}

// psuLogin starts the login of the PSU's page of consents: its flow is
// stored with the pending login (the callback takes it once), and the
// browser goes to the provider. Each start counts against addr as a
// wrong number does, so no client stores flows without bound.
func (s *Server) psuLogin(w http.ResponseWriter, r *http.Request, addr string) {
	ctx := r.Context()
	s.psu.miss(addr)
	csrf, err1 := randomToken()
	state, err2 := randomToken()
	nonce, err3 := randomToken()
	cookie, err4 := randomToken()
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f := &store.SCAFlow{ID: store.NewID(), TPP: "bank", TPPSessionID: "psu", Purpose: PurposePSUConsents, State: store.FlowPending,
		CSRF: csrf, ExpiresAt: s.cfg.Now().Add(FlowLifetime)}
	l := idp.Login{State: f.ID + "." + state, Nonce: nonce, Verifier: oauth2.GenerateVerifier()}
	to, err := s.cfg.IdP.AuthURL(ctx, s.callbackURL(r), l)
	if err != nil {
		s.log.Warn("PSU page login: identity provider unavailable", "error", err)
		scaError(w, outcomeIdPUnavailable.Text+".", http.StatusServiceUnavailable)
		return
	}
	secrets, _ := json.Marshal(loginSecrets{Nonce: l.Nonce, Verifier: l.Verifier, Cookie: sessionHash(cookie)})
	f.LoginState, f.Login = sessionHash(l.State), string(secrets)
	if err := s.cfg.Store.CreateSCAFlow(ctx, f); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuFormCookie, Value: "", Path: psuBase, MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: cookie, Path: callbackPath, MaxAge: int(FlowLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// psuLoggedIn opens the PSU's page of consents after its login: the page
// is bound to this browser by a fresh secret cookie, as the mock's
// identification does.
func (s *Server) psuLoggedIn(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, c *store.Customer, secrets loginSecrets) {
	secret, err1 := randomToken()
	csrf, err2 := randomToken()
	if err1 != nil || err2 != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	kept, _ := json.Marshal(loginSecrets{Cookie: secrets.Cookie})
	f.CustomerID, f.SessionHash, f.CSRF, f.Login = c.ID, sessionHash(secret), csrf, string(kept)
	if err := s.cfg.Store.UpdateSCAFlow(r.Context(), f, store.FlowPending); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuCookie, Value: secret, Path: psuBase + "/" + f.ID, MaxAge: int(FlowLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	continueTo(w, psuBase+"/"+f.ID)
}

var continueTemplate = template.Must(template.New("continue").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={{.Href}}">
<title>Logged in – Bank authorisation</title></head>
<body><p>You are logged in. <a href="{{.Href}}" id="continue">Continue</a></p></body></html>
`))

// idpUnavailable ends the flow as the provider's outage does: the TPP gets
// the failure redirect, and the PSU a page that says what happened, with
// the way back to the TPP.
func (s *Server) idpUnavailable(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	if f.Purpose == PurposePSUConsents {
		s.loginFailed(w, r, f, outcomeIdPUnavailable)
		return
	}
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
	s.rejectPayments(ctx, f)
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
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = unavailableTemplate.Execute(w, struct{ TPP, Back string }{f.TPP, back.String()})
}

var unavailableTemplate = template.Must(template.New("unavailable").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login unavailable – Bank authorisation</title></head>
<body><h1>The bank's login is unavailable</h1>
<p id="error">The bank's login service cannot be reached right now, so this authorisation has ended. Nothing was shared or approved.</p>
<p><a href="{{.Back}}" id="back">Return to {{.TPP}}</a> and try again later.</p></body></html>
`))
