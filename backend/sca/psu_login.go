package sca

import (
	"encoding/binary"
	"errors"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
)

// The PSU's page of consents logs the PSU in at the identity provider as
// the SCA page does, but stores nothing before the provider answers:
// anyone may open the page, so a pending login travels sealed in the
// state itself (psuStatePrefix and a sealed text, seal.go), and the
// page's flow is stored only after a successful login, under the id the
// state names: a replayed state finds it stored and is refused.

// psuStatePrefix starts the state of a login of the PSU's page of
// consents.
const psuStatePrefix = "p."

// psuSealKind is the first byte of a sealed pending PSU login.
const psuSealKind = 'P'

// psuPending is a pending login of the PSU's page of consents.
type psuPending struct {
	FlowID, Nonce, Verifier, CookieHash string
	// Sandbox is the sandbox the PSU named (psuSandbox).
	Sandbox string
	Started time.Time
}

// sealPSU seals p for the state.
func (s *Service) sealPSU(r *http.Request, p psuPending) (string, error) {
	plain := []byte{psuSealKind}
	plain = binary.BigEndian.AppendUint64(plain, uint64(p.Started.Unix()))
	plain = appendFields(plain, p.FlowID, p.Nonce, p.Verifier, p.CookieHash, p.Sandbox)
	return s.seal.sealPlain(r.Context(), plain)
}

// openPSU opens a sealed pending PSU login.
func (s *Service) openPSU(r *http.Request, sealed string) (psuPending, bool) {
	plain, ok := s.seal.openPlain(r.Context(), sealed)
	if !ok || len(plain) < 9 || plain[0] != psuSealKind {
		return psuPending{}, false
	}
	p := psuPending{Started: time.Unix(int64(binary.BigEndian.Uint64(plain[1:9])), 0)}
	rest, ok := readFields(plain[9:], &p.FlowID, &p.Nonce, &p.Verifier, &p.CookieHash, &p.Sandbox)
	return p, ok && len(rest) == 0
}

// psuLogin starts the login of the PSU's page of consents: nothing is
// stored, the browser goes to the provider with the login sealed in the
// state and bound to this browser by a cookie.
func (s *Service) psuLogin(w http.ResponseWriter, r *http.Request) {
	sandboxOwner, named := s.psuSandbox(r)
	if !named {
		s.psuIdentify(w, r, errNoSandbox)
		return
	}
	nonce, err1 := randomToken()
	cookie, err2 := randomToken()
	if err := errors.Join(err1, err2); err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	p := psuPending{FlowID: store.NewID(), Nonce: nonce, Verifier: oauth2.GenerateVerifier(), CookieHash: sessionHash(cookie), Sandbox: sandboxOwner, Started: s.cfg.Now()}
	sealed, err := s.sealPSU(r, p)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	to, err := s.cfg.IdP.AuthURL(r.Context(), s.callbackURL(r), idp.Login{State: psuStatePrefix + sealed, Nonce: p.Nonce, Verifier: p.Verifier, Started: p.Started})
	if err != nil {
		s.log.Warn("PSU page login: identity provider unavailable", "error", err)
		scaError(w, outcomeIdPUnavailable.Text+".", http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuFormCookie, Value: "", Path: respond.Under(r, PSUBase), MaxAge: -1, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	setLoginCookie(w, p.FlowID, cookie, p.Started.Add(FlowLifetime))
	toProvider(w, to)
}

// psuCallback takes the provider's answer to a login of the PSU's page
// of consents: in the browser that started it, within FlowLifetime, once
// (the page's flow is created under the state's id). A failed login
// counts as a wrong number does for the client's address.
func (s *Service) psuCallback(w http.ResponseWriter, r *http.Request, sealed string) {
	p, ok := s.openPSU(r, sealed)
	if !ok {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	if _, mine := fromLoginBrowser(r, p.FlowID, p.CookieHash); !mine {
		scaError(w, errOtherBrowser, http.StatusForbidden)
		return
	}
	if !s.cfg.Now().Before(p.Started.Add(FlowLifetime)) {
		scaError(w, "The login took too long. Open the page of your consents again.", http.StatusGone)
		return
	}
	c, outcome := s.identifyAtProvider(w, r, p.Sandbox, r.URL.Query(), idp.Login{State: psuStatePrefix + sealed, Nonce: p.Nonce, Verifier: p.Verifier, Started: p.Started})
	switch {
	case outcome == outcomeIdPUnavailable:
		scaError(w, outcome.Text+".", http.StatusServiceUnavailable)
		return
	case outcome != nil:
		// The guess spent when the login started stays spent.
		scaError(w, outcome.Text+". Open the page of your consents again.", http.StatusForbidden)
		return
	case c == nil:
		return // answered (the store failed)
	}
	s.refundGuess(r)
	secret, err1 := randomToken()
	csrf, err2 := randomToken()
	if err1 != nil || err2 != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	f := &store.SCAFlow{ID: p.FlowID, TPP: "bank", TPPSessionID: "psu", Purpose: PurposePSUConsents, State: store.FlowPending,
		CustomerID: c.ID, CSRF: csrf, SessionHash: sessionHash(secret), ExpiresAt: s.cfg.Now().Add(FlowLifetime)}
	switch err := s.cfg.Store.CreateSCAFlow(r.Context(), f); {
	case errors.Is(err, store.ErrConflict):
		scaError(w, outcomeLoginReplayed.Text+". Open the page of your consents again.", http.StatusForbidden)
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: psuCookie, Value: secret, Path: respond.Under(r, PSUBase+"/"+f.ID), MaxAge: int(FlowLifetime.Seconds()),
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	continueTo(w, r, respond.Under(r, PSUBase+"/"+f.ID))
}
