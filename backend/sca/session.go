package sca

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"

	"github.com/obgw/obgw/backend/store"
)

// FlowCookie is the SCA page's cookie, scoped to one flow's path. Before the
// PSU identifies it holds a random value of this browser's own (a visitor
// of the same link, the TPP included, gets another); identifying replaces
// it with a fresh secret that binds the flow to that browser: the flow
// keeps only the secret's SHA-256, and every later step wants the secret.
// The cookie is HttpOnly, Secure and SameSite=Strict, so a cross-site form
// never carries it.
const FlowCookie = "obgw_sca"

// HSTS is sent on every response of the SCA routes: the PSU types an
// identification number into these pages.
const HSTS = "max-age=31536000"

// errOtherBrowser answers a browser without the flow's secret after the PSU
// identified: it names nothing of the PSU, the accounts or the payments.
const errOtherBrowser = "This authorisation is in progress in another browser. Continue there, or start again from the service you came from."

// sessionHash is what a flow keeps of its browser's secret.
func sessionHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// browserCookie returns the flow's cookie r carries, if it has the shape
// of one this server sets.
func browserCookie(r *http.Request) (string, bool) {
	c, err := r.Cookie(FlowCookie)
	if err != nil || len(c.Value) != tokenLength {
		return "", false
	}
	return c.Value, true
}

// tokenLength is the length of randomToken's values.
const tokenLength = 43

// fromBrowser reports whether r may act on the flow: once the PSU
// identified, it carries the secret whose hash the flow keeps (compared in
// constant time); before, it carries a cookie of this page at all, which a
// cross-site post cannot.
func fromBrowser(r *http.Request, f *store.SCAFlow) bool {
	v, ok := browserCookie(r)
	if !ok {
		return false
	}
	if f.SessionHash == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(sessionHash(v)), []byte(f.SessionHash)) == 1
}

// bindBrowser binds f to the browser whose pre-identification cookie is
// before: a fresh random key, the secret derived from it and before, and
// a fresh form token (so what any visitor saw before identification is
// worthless). It returns the secret for the cookie; f keeps only its hash.
func bindBrowser(f *store.SCAFlow, before string) (string, error) {
	key, err := randomToken()
	if err != nil {
		return "", err
	}
	csrf, err := randomToken()
	if err != nil {
		return "", err
	}
	secret := browserSecret(f.ID, key, before)
	f.BindKey, f.SessionHash, f.CSRF = key, sessionHash(secret), csrf
	return secret, nil
}

// boundTo returns the secret of f's binding when f is bound to the browser
// whose pre-identification cookie is before: an identification this
// browser submitted twice at once, which the other submission won.
func boundTo(f *store.SCAFlow, before string) (string, bool) {
	if f.SessionHash == "" || f.BindKey == "" {
		return "", false
	}
	secret := browserSecret(f.ID, f.BindKey, before)
	return secret, subtle.ConstantTimeCompare([]byte(sessionHash(secret)), []byte(f.SessionHash)) == 1
}

// browserSecret derives a bound browser's secret: it takes both the key
// only the store has and the cookie only that browser had.
func browserSecret(flowID, key, before string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(flowID))
	m.Write([]byte{0})
	m.Write([]byte(before))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// setFlowCookie sets the flow's cookie to value for maxAge seconds.
func setFlowCookie(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: FlowCookie, Value: value, Path: scaHref(r, f.ID), MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode,
	})
}

// scaError answers a plain-text error page that is never cached.
func scaError(w http.ResponseWriter, message string, status int) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, message, status)
}

// UnknownLink answers a PSU page's link that names nothing (an id no
// flow can have): 404 with the pages' text, never cached, with HSTS.
func UnknownLink(w http.ResponseWriter) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	scaError(w, errUnknownLink, http.StatusNotFound)
}

// Messages of the SCA pages' errors.
const (
	errUnknownLink = "This authorisation link is unknown. Start again from the service you came from."
	errUnavailable = "The bank's systems are temporarily unavailable. Try again in a moment."
	errFinished    = "This authorisation is already finished. Return to the service you came from."
)
