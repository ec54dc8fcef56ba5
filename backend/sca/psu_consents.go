package sca

import (
	"context"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/civildate"
	"github.com/obgw/obgw/backend/pathid"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

// The PSU's page of consents: "The PSU can revoke consent at any time with
// the bank." GET /v1/psu/consents asks the PSU to identify as the SCA page
// does (at the bank's identity provider, login.go, or in the sandbox
// by customer number); identifying opens a
// page of the PSU's own, /v1/psu/consents/{id}, bound to that browser by a
// secret cookie (the store keeps only its hash, in an SCA flow of purpose
// PurposePSUConsents, swept like any flow), which lists every consent the
// PSU gave, to any TPP, and revokes one on request: the TPP's next call
// under it gets 401 CONSENT_EXPIRED. In a sandbox the page opens only from
// the link its TPP gets (psu_link.go). Nothing is stored before the PSU
// identifies (psu_login.go seals a pending login into its state); wrong
// numbers and failed logins are limited per client address (psuGuesses).

// PurposePSUConsents is the flow of the PSU's page of consents.
const PurposePSUConsents = "psu-consents"

var psuTemplate = template.Must(template.ParseFS(templateFiles, "templates/psu_consents.html"))

// psuFormCookie is the double-submit token of the identification form,
// before anything is stored; psuCookie binds the PSU's page to its browser.
const (
	psuFormCookie = "obgw_psu_form"
	psuCookie     = "obgw_psu"
	PSUBase       = "/v1/psu/consents"
)

// psuGuesses limits identification attempts on the PSU's page per client
// address (an IPv6 one by its /64): 5, then one more every 3 minutes,
// spent before the number is looked up (or the login starts) and given
// back when it was right, in the store, so that every instance sharing it
// counts parallel guesses together (store.SpendAllowance). Behind a separate
// gateway every PSU comes from the gateway's address; the limit then holds
// for all of them together.
var psuGuesses = store.Allowance{Burst: 5, Every: 3 * time.Minute}

// guessKey is the key of r's client in psuGuesses.
func guessKey(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr) // [2001:db8::1]:443 too
	if err != nil {
		return "psu:" + clientAddress(r)
	}
	a := ap.Addr()
	if a = a.Unmap(); a.Is6() {
		p, _ := a.Prefix(64)
		return "psu:" + p.String()
	}
	return "psu:" + a.String()
}

// spendGuess spends one of r's client's guesses, or answers 429 (or 503)
// and reports false.
func (s *Service) spendGuess(w http.ResponseWriter, r *http.Request) bool {
	ok, err := s.cfg.Store.SpendAllowance(r.Context(), guessKey(r), psuGuesses, s.cfg.Now())
	switch {
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return false
	case !ok:
		w.Header().Set("Strict-Transport-Security", HSTS)
		scaError(w, "Too many wrong identification numbers. Try again later.", http.StatusTooManyRequests)
		return false
	}
	return true
}

// refundGuess gives r's client its guess back: it was right.
func (s *Service) refundGuess(r *http.Request) {
	if err := s.cfg.Store.RefundAllowance(r.Context(), guessKey(r)); err != nil {
		s.log.Warn("PSU page: a right guess stays counted", "error", err)
	}
}

type psuView struct {
	// Login: the PSU logs in at the bank's identity provider.
	Sandbox, Identify, Login bool
	// SandboxLink is the sandbox's sealed link the form carries.
	SandboxLink         string
	Action, CSRF, Error string
	Customer            string
	Consents            []psuConsent
}

type psuConsent struct {
	ID, TPP, Context, Status, ValidUntil string
	Accounts                             int
	Revocable                            bool
}

// psuHeaders are the PSU pages' headers: never cached, never framed,
// forms posting only to this page, HSTS.
func psuHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Strict-Transport-Security", HSTS)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
}

// PSUIdentifyPage shows the identification form with a fresh form token.
func (s *Service) PSUIdentifyPage(w http.ResponseWriter, r *http.Request) {
	s.psuIdentify(w, r, "")
}

func (s *Service) psuIdentify(w http.ResponseWriter, r *http.Request, problem string) {
	if !s.identifies() {
		w.Header().Set("Strict-Transport-Security", HSTS)
		scaError(w, errNoSCAProvider, http.StatusServiceUnavailable)
		return
	}
	var link string
	if s.cfg.Sandbox {
		// The sandbox's sealed link, carried from the page's address
		// into its form.
		if link = r.PostForm.Get("sandbox"); link == "" {
			link = r.URL.Query().Get("sandbox")
		}
		if _, ok := s.openPSULink(r, link); !ok {
			w.Header().Set("Strict-Transport-Security", HSTS)
			scaError(w, errNoSandbox, http.StatusForbidden)
			return
		}
	}
	token, err := randomToken()
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuFormCookie, Value: token, Path: respond.Under(r, PSUBase), MaxAge: int(FlowLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	psuHeaders(w)
	_ = psuTemplate.Execute(w, psuView{Sandbox: s.cfg.Sandbox, SandboxLink: link, Login: s.ident.formStep() == stepLogin, Identify: true, Action: respond.Under(r, PSUBase), CSRF: token, Error: problem})
}

// PSUIdentifySubmit identifies the PSU and opens its page.
func (s *Service) PSUIdentifySubmit(w http.ResponseWriter, r *http.Request) {
	if !s.identifies() {
		w.Header().Set("Strict-Transport-Security", HSTS)
		scaError(w, errNoSCAProvider, http.StatusServiceUnavailable)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		scaError(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	c, err := r.Cookie(psuFormCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostForm.Get("csrf"))) != 1 || len(c.Value) != tokenLength {
		w.Header().Set("Strict-Transport-Security", HSTS)
		scaError(w, "This form has expired or did not come from the bank's page. Open the page again.", http.StatusForbidden)
		return
	}
	if !s.spendGuess(w, r) {
		return
	}
	s.ident.identifyPSU(w, r)
}

// psuIdentifyNumber identifies the PSU of the page of consents by the
// customer number it typed in (in the sandbox it named): the sandbox's
// mock.
func (s *Service) psuIdentifyNumber(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	number := strings.TrimSpace(r.PostForm.Get("customerNumber"))
	owner, named := s.psuSandbox(r)
	if !named {
		s.psuIdentify(w, r, errNoSandbox)
		return
	}
	var cust *store.Customer
	err := store.ErrNotFound
	if pathid.Plausible(number) {
		cust, err = s.cfg.Store.GetCustomerByNumber(ctx, owner, number)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	if err != nil || cust.Type != store.CustomerPrivate {
		s.psuIdentify(w, r, "Unknown identification number. Check it and try again.")
		return
	}
	s.refundGuess(r)
	secret, err1 := randomToken()
	csrf, err2 := randomToken()
	if err1 != nil || err2 != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f := &store.SCAFlow{TPP: "bank", TPPSessionID: "psu", Purpose: PurposePSUConsents, State: store.FlowPending,
		CustomerID: cust.ID, CSRF: csrf, SessionHash: sessionHash(secret), ExpiresAt: s.cfg.Now().Add(FlowLifetime)}
	if err := s.cfg.Store.CreateSCAFlow(ctx, f); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuFormCookie, Value: "", Path: respond.Under(r, PSUBase), MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: psuCookie, Value: secret, Path: respond.Under(r, PSUBase+"/"+f.ID), MaxAge: int(FlowLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Strict-Transport-Security", HSTS)
	http.Redirect(w, r, respond.Under(r, PSUBase+"/"+f.ID), http.StatusSeeOther)
}

// clientAddress is the host of the request's remote address.
func clientAddress(r *http.Request) string {
	if i := strings.LastIndexByte(r.RemoteAddr, ':'); i > 0 {
		return r.RemoteAddr[:i]
	}
	return r.RemoteAddr
}

// psuPageOf returns the PSU's page of the path, when this browser holds it.
func (s *Service) psuPageOf(w http.ResponseWriter, r *http.Request) (*store.SCAFlow, bool) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	if !s.identifies() {
		scaError(w, errNoSCAProvider, http.StatusServiceUnavailable)
		return nil, false
	}
	f, err := s.cfg.Store.GetSCAFlow(r.Context(), r.PathValue("flowId"))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return nil, false
	}
	c, cerr := r.Cookie(psuCookie)
	if err != nil || f.Purpose != PurposePSUConsents || f.State != store.FlowPending || cerr != nil ||
		subtle.ConstantTimeCompare([]byte(sessionHash(c.Value)), []byte(f.SessionHash)) != 1 {
		scaError(w, "This page is unknown or belongs to another browser. Open the page of your consents again.", http.StatusNotFound)
		return nil, false
	}
	if !s.cfg.Now().Before(f.ExpiresAt) {
		scaError(w, "This page has expired. Open the page of your consents again.", http.StatusGone)
		return nil, false
	}
	return f, true
}

// PSUPage lists the PSU's consents.
func (s *Service) PSUPage(w http.ResponseWriter, r *http.Request) {
	f, ok := s.psuPageOf(w, r)
	if !ok {
		return
	}
	s.renderPSU(w, r, r.Context(), f, "")
}

func (s *Service) renderPSU(w http.ResponseWriter, r *http.Request, ctx context.Context, f *store.SCAFlow, problem string) {
	cust, err := s.cfg.Store.GetCustomer(ctx, f.CustomerID)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	ks, err := s.cfg.Store.ListCustomerConsents(ctx, f.CustomerID)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	now := s.cfg.Now()
	v := psuView{Sandbox: s.cfg.Sandbox, Action: respond.Under(r, PSUBase+"/"+f.ID), CSRF: f.CSRF, Error: problem, Customer: cust.Name}
	for _, k := range ks {
		status := k.Status
		if status == store.ConsentValid && !now.Before(k.ValidUntil) {
			status = store.ConsentExpired
		}
		c := psuConsent{ID: k.ID, TPP: k.TPP, Context: k.Context, Status: status, Accounts: len(k.AccountIDs),
			Revocable: status == store.ConsentValid}
		if !k.ValidUntil.IsZero() {
			c.ValidUntil = civildate.Today(k.ValidUntil)
		}
		v.Consents = append(v.Consents, c)
	}
	psuHeaders(w)
	_ = psuTemplate.Execute(w, v)
}

// PSUSubmit revokes one of the PSU's valid consents.
func (s *Service) PSUSubmit(w http.ResponseWriter, r *http.Request) {
	f, ok := s.psuPageOf(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("step") != "revoke" ||
		subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(f.CSRF)) != 1 {
		scaError(w, "This form has expired or did not come from the bank's page. Open the page again.", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	id := r.PostForm.Get("consentId")
	var k *store.Consent
	err := store.ErrNotFound
	if pathid.Plausible(id) {
		k, err = s.cfg.Store.GetConsent(ctx, id)
	}
	switch {
	case err != nil && !errors.Is(err, store.ErrNotFound):
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case err != nil || k.CustomerID != f.CustomerID:
		s.renderPSU(w, r, ctx, f, "Choose one of your consents.")
		return
	case k.Status != store.ConsentValid || !s.cfg.Now().Before(k.ValidUntil):
		s.renderPSU(w, r, ctx, f, "This consent has already ended ("+k.Status+").")
		return
	}
	if err := s.cfg.Store.SetConsentStatus(ctx, k.ID, store.ConsentRevokedByPSU); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.Redirect(w, r, respond.Under(r, PSUBase+"/"+f.ID), http.StatusSeeOther)
}
