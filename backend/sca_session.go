package backend

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"

	"github.com/obgw/obgw/backend/store"
)

// scaCookie is the SCA page's cookie, scoped to one flow's path. Before the
// PSU identifies it holds the flow's form token (a double-submit CSRF
// cookie: anyone holding the scaRedirect link may get one, and the page
// shows nothing of a PSU then). Identifying replaces it with a fresh secret
// that binds the flow to that browser: the flow keeps only the secret's
// SHA-256, and every later step wants the secret.
const scaCookie = "obgw_sca"

// scaHSTS is sent on every response of the SCA routes: the PSU types an
// identification number into these pages.
const scaHSTS = "max-age=31536000"

// errOtherBrowser answers a browser without the flow's secret after the PSU
// identified: it names nothing of the PSU, the accounts or the payments.
const errOtherBrowser = "This authorisation is in progress in another browser. Continue there, or start again from the service you came from."

// sessionHash is what a flow keeps of its browser's secret.
func sessionHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// fromBrowser reports whether r carries the flow's cookie: the secret whose
// hash the flow keeps once the PSU identified, the form token before.
// Both are compared in constant time.
func fromBrowser(r *http.Request, f *store.SCAFlow) bool {
	c, err := r.Cookie(scaCookie)
	if err != nil {
		return false
	}
	if f.SessionHash == "" {
		return f.CSRF != "" && subtle.ConstantTimeCompare([]byte(c.Value), []byte(f.CSRF)) == 1
	}
	return subtle.ConstantTimeCompare([]byte(sessionHash(c.Value)), []byte(f.SessionHash)) == 1
}

// bindBrowser gives f a fresh browser secret and a fresh form token (so
// what a visitor saw before identification is worthless) and returns the
// secret for the cookie; f keeps only its hash.
func bindBrowser(f *store.SCAFlow) (string, error) {
	secret, err := randomToken()
	if err != nil {
		return "", err
	}
	csrf, err := randomToken()
	if err != nil {
		return "", err
	}
	f.SessionHash, f.CSRF = sessionHash(secret), csrf
	return secret, nil
}

// setFlowCookie sets the flow's cookie to value (maxAge < 0 deletes it).
func setFlowCookie(w http.ResponseWriter, f *store.SCAFlow, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: scaCookie, Value: value, Path: scaHref(f.ID), MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode,
	})
}

// scaError answers a plain-text error page that is never cached.
func scaError(w http.ResponseWriter, message string, status int) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, message, status)
}

// Messages of the SCA pages' errors.
const (
	errUnavailable = "The bank's systems are temporarily unavailable. Try again in a moment."
	errFinished    = "This authorisation is already finished. Return to the service you came from."
)
