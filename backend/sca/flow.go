package sca

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// scaRequired returns the 401 CONSENT_INVALID (or CONSENT_EXPIRED) error
// carrying the scaRedirect link of a new SCA flow for the request. The
// flow is sealed into the link, not stored (seal.go): a request
// without consent writes nothing.
func (s *Service) scaRequired(ctx context.Context, r *http.Request, c *tppcontext.Context, code, text string) *bgerror.Error {
	f, e := s.newFlow(r, c, store.PurposeConsent, "", true)
	if e != nil {
		return e
	}
	token, err := s.seal.seal(ctx, f)
	if err != nil {
		return s.storeError(err, "the SCA link")
	}
	return bgerror.New(code, text).WithSCARedirect(respond.Under(r, SealedBase+token))
}

// startFlow creates a pending SCA flow bound to the TPP, its session id and
// redirect URI. anySession lets a request without TPP-Session-ID (a PSU-not-
// present call that finds the consent expired) get a flow with a session id
// made by the bank; the success redirect hands it to the TPP.
func (s *Service) startFlow(ctx context.Context, r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	f, e := s.newFlow(r, c, purpose, resourceID, anySession)
	if e != nil {
		return nil, e
	}
	if err := s.cfg.Store.CreateSCAFlow(ctx, f); err != nil {
		return nil, s.storeError(err, "the SCA flow")
	}
	s.observeSCA(StepStarted, "")
	return f, nil
}

// newFlow is startFlow's flow, not yet stored.
func (s *Service) newFlow(r *http.Request, c *tppcontext.Context, purpose, resourceID string, anySession bool) (*store.SCAFlow, *bgerror.Error) {
	redirect := r.Header.Get("Tpp-Redirect-Uri")
	if redirect == "" {
		return nil, bgerror.Format("TPP-Redirect-URI", "TPP-Redirect-URI is required: SCA may be demanded at any time")
	}
	// The flow keeps both headers; the gateway bounds them (hygiene), and
	// so does the backend, which a lenient gateway policy may not protect.
	if len(redirect) > maxRedirectURIBytes {
		return nil, bgerror.Format("TPP-Redirect-URI", "TPP-Redirect-URI is over 1024 bytes; send at most 1024 bytes")
	}
	if len(r.Header.Get("Tpp-Session-Id")) > maxSessionIDBytes {
		return nil, bgerror.Format("TPP-Session-ID", "TPP-Session-ID is over 128 bytes; send at most 128 bytes")
	}
	now := s.cfg.Now()
	token, err := randomToken()
	if err != nil {
		return nil, bgerror.New(bgerror.CodeServiceUnavailable, "the SCA flow could not be started; retry")
	}
	sessionID := r.Header.Get("Tpp-Session-Id")
	if sessionID == "" {
		if !anySession {
			return nil, bgerror.Format("TPP-Session-ID", "TPP-Session-ID is required to start SCA; send the TPP's session identifier")
		}
		sessionID = "bank-" + token[:22]
	}
	return &store.SCAFlow{
		TPP: c.TPP, TPPName: c.TPPName, TPPSessionID: sessionID, RedirectURI: redirect,
		Purpose: purpose, ResourceID: resourceID, State: store.FlowPending,
		CSRF: token, ExpiresAt: now.Add(FlowLifetime),
		// "false triggers biometric authentication in the bank's mobile
		// app where available" (the gateway checked the value's form).
		AppPreferred: strings.EqualFold(r.Header.Get("Tpp-Redirect-Preferred"), "false"),
	}, nil
}

// Bounds of the headers an SCA flow keeps, as the gateway's (README,
// "Input bounds").
const (
	maxRedirectURIBytes = 1024
	maxSessionIDBytes   = 128
)

func scaHref(r *http.Request, flowID string) string { return respond.Under(r, "/v1/sca/"+flowID) }

// A flow has one outcome, whichever of several concurrent submissions (a
// double-clicked "Confirm", two tabs) reaches the store first: the first
// to move the flow out of pending acts on it (authorises its payments,
// stores its consent and session) and records the redirect it answers; the
// others answer the same redirect.

// outcomeWait bounds how long a duplicate submission waits for the request
// that claimed the flow to record its outcome.
const outcomeWait = 10 * time.Second

// actTimeout bounds the claimed flow's work. The work does not stop when
// the browser that started it goes away (a double-click aborts the first
// post): a half-done flow would never get its outcome.
const actTimeout = 30 * time.Second

// complete ends a flow successfully: it claims the flow, then authorises
// its payments (or cancels one), stores the consent for the chosen
// accounts (none for a PISP-only flow), the TPP session and the PSU's
// identifiers, records the outcome and answers with it.
func (s *Service) complete(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, chosen []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), actTimeout)
	defer cancel()
	claimed := *f
	claimed.State = store.FlowCompleting
	if err := s.cfg.Store.UpdateSCAFlow(ctx, &claimed, store.FlowPending); err != nil {
		if errors.Is(err, store.ErrConflict) {
			s.replay(w, r, f.ID)
			return
		}
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	to, q, failed := s.act(ctx, &claimed, chosen)
	s.end(w, r, &claimed, store.FlowCompleting, to, q, failed, nil)
}

// act does what the claimed flow f authorises and returns the state it ends
// in, its redirect's query and, when it did not all succeed, the outcome
// that says why.
func (s *Service) act(ctx context.Context, f *store.SCAFlow, chosen []string) (string, url.Values, *bgerror.Error) {
	// What the purpose authorises about payments: the payments of a
	// payment or basket flow, a payment's cancellation (Payments); a
	// consent is stored below with the session, for every purpose.
	if outcome, authorised := s.cfg.Payments.Authorise(ctx, f); outcome != nil {
		if authorised {
			// The SCA authorised the payments; the redirect says that
			// not all of them were executed.
			return store.FlowCompleted, failure(outcome), outcome
		}
		return store.FlowFailed, failure(outcome), outcome
	}
	now := s.cfg.Now()
	sess := &store.Session{
		TPP: f.TPP, TPPSessionID: f.TPPSessionID, CustomerID: f.CustomerID, Context: f.Context,
		AgreementID: f.AgreementID, ValidUntil: now.Add(SessionLifetime),
	}
	psuID, err := s.cfg.Store.PSUID(ctx, f.TPP, f.CustomerID)
	if err == nil && f.Purpose == store.PurposeConsent {
		err = s.cfg.Consents.Grant(ctx, f, chosen, now)
	}
	if err == nil {
		err = s.cfg.Store.CompleteSession(ctx, sess)
	}
	q := url.Values{"psu-id": {psuID}, "tpp-session-id": {f.TPPSessionID}, "context": {f.Context}}
	if err == nil && f.Context == "CORPORATE" {
		var cid string
		cid, err = s.cfg.Store.CorporateID(ctx, f.TPP, f.AgreementID)
		q.Set("psu-corporate-id", cid)
	}
	if err != nil {
		// Payments authorised (or cancelled) stay so: the flow did that
		// much; a consent or PSU-ID flow did nothing.
		to := store.FlowFailed
		if f.Purpose == store.PurposePayment || f.Purpose == store.PurposeBasket || f.Purpose == store.PurposeCancellation {
			to = store.FlowCompleted
		}
		return to, failure(outcomeNotRecorded), outcomeNotRecorded
	}
	return store.FlowCompleted, q, nil
}

// failure is the query of a failure redirect for e, whose text is one of
// the fixed messages for the PSU, never an error's text.
func failure(e *bgerror.Error) url.Values {
	return url.Values{"system": {"obgw-sca"}, "status": {strconv.Itoa(e.Status)}, "code": {e.Code}, "message": {e.Text}}
}

// Outcomes of a flow that every purpose can end with.
var (
	outcomeTooLong     = bgerror.New(bgerror.CodeConsentInvalid, "The authorisation took too long; start again")
	outcomeCancelled   = bgerror.New(bgerror.CodeConsentInvalid, "The PSU cancelled the authorisation")
	outcomeTooMany     = bgerror.New(bgerror.CodeConsentInvalid, "Too many wrong identification numbers; start again")
	outcomeNotRecorded = bgerror.New(bgerror.CodeServiceUnavailable, "The authorisation could not be stored; try again")
)

// fail ends a pending flow as failed (the PSU cancelled, took too long, or
// ran out of identification attempts); after runs only when this request
// ended it.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, outcome *bgerror.Error, after func(context.Context)) {
	s.end(w, r, f, store.FlowPending, store.FlowFailed, failure(outcome), outcome, after)
}

// end records the flow's outcome by a compare-and-set from state from, runs
// after when this request won, and answers with the outcome: its own, or,
// when another request ended the flow first, that one's. A flow is never
// moved out of a state another request moved it to.
func (s *Service) end(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, from, to string, q url.Values, failed *bgerror.Error, after func(context.Context)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), actTimeout)
	defer cancel()
	done := *f
	done.State, done.Outcome = to, q.Encode()
	err := s.cfg.Store.UpdateSCAFlow(ctx, &done, from)
	if err != nil && from == store.FlowCompleting && errors.Is(err, store.ErrUnavailable) {
		// The flow has acted: one more try at recording how, after a
		// moment, rather than leave duplicates waiting for nothing.
		time.Sleep(100 * time.Millisecond)
		err = s.cfg.Store.UpdateSCAFlow(ctx, &done, from)
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		s.replay(w, r, f.ID)
		return
	case err != nil && from == store.FlowPending:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case err != nil:
		// The claimed flow has acted: the PSU and the TPP learn how it
		// went even though the store did not record it (duplicates then
		// time out waiting, and the flow expires).
	}
	if err == nil {
		s.observeEnd(to, failed)
		if after != nil {
			after(ctx)
		}
	}
	s.redirect(w, r, &done, q)
}

// replay answers a request that lost the race to end flow id with the
// outcome the winner recorded, waiting up to outcomeWait while the winner
// is still at work.
func (s *Service) replay(w http.ResponseWriter, r *http.Request, id string) {
	deadline := time.NewTimer(outcomeWait)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		f, err := s.cfg.Store.GetSCAFlow(r.Context(), id)
		switch {
		case err != nil:
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		case f.State == store.FlowPending:
			// Still pending: what this request lost to was another
			// browser's identification, not an outcome.
			scaError(w, "This authorisation changed in another window. Start again from the service you came from.", http.StatusConflict)
			return
		case f.State != store.FlowCompleting && f.Outcome == "":
			scaError(w, errFinished, http.StatusGone)
			return
		case f.State != store.FlowCompleting:
			q, err := url.ParseQuery(f.Outcome)
			if err != nil {
				scaError(w, errFinished, http.StatusGone)
				return
			}
			s.redirect(w, r, f, q)
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			w.Header().Set("Retry-After", "2")
			scaError(w, "This authorisation is still being completed. Reload the page in a moment.", http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			return
		}
	}
}

// redirect sends the PSU's browser to the TPP-Redirect-URI with params
// added to its own query. The URI is the one the gateway validated when the
// flow was created (https, or http://localhost in the sandbox); the server
// never fetches it itself.
func (s *Service) redirect(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, params url.Values) {
	u, err := url.Parse(f.RedirectURI)
	if err != nil {
		scaError(w, "The service you came from gave an invalid return address.", http.StatusBadRequest)
		return
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	// The flow's cookie is left to expire: a click that lands after this
	// answer still carries it, and gets this same redirect.
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}
