package sca

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/obgw/obgw/backend/pathid"
	"github.com/obgw/obgw/backend/store"
)

//go:embed templates/*.html
var templateFiles embed.FS

var scaTemplate = template.Must(template.ParseFS(templateFiles, "templates/sca.html"))

// MaxIdentifyAttempts is how many identification numbers one flow may try:
// the attempt that uses the last one up without success ends the flow with
// the failure redirect.
const MaxIdentifyAttempts = 5

// scaView is what the SCA page shows.
type scaView struct {
	Title, TPP, Step, Action, CSRF, Error, Customer string
	// Asks says what the TPP asks of the PSU, after its name, on every
	// step.
	Asks string
	// Summary says what the PSU authorises (payments), on every step.
	Summary []string
	// Payments says the PSU authorises the Summary's payments.
	Payments bool
	// Cancellation says the PSU authorises cancelling the Summary's payment.
	Cancellation bool
	Sandbox      bool
	// Login: the PSU identifies at the bank's identity provider, not by
	// typing a number.
	Login bool
	// App: the TPP preferred the bank's app (TPP-Redirect-Preferred:
	// false); a sandbox without an identity provider simulates it.
	App        bool
	Agreements []store.Agreement
	Accounts   []accountChoice
}

type accountChoice struct{ ID, Label string }

// errNoSCAProvider answers the SCA page outside the sandbox when no
// identity provider is configured: identifying a PSU by a customer number
// alone is a mock. A deployment through the Caddy module refuses to start
// so (caddymodule/backend.go); this guards a Service built otherwise.
const errNoSCAProvider = "Strong customer authentication is not available in this deployment: no SCA provider is configured."

// Page shows the step of the flow the PSU is at.
func (s *Service) Page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	f, ok := s.openFlow(w, r)
	if !ok {
		return
	}
	if _, ok := browserCookie(r); !ok && f.SessionHash == "" {
		// This browser's own cookie until it identifies; after, only
		// identification sets it (to the browser's secret).
		v, err := randomToken()
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		setFlowCookie(w, r, f, v, int(FlowLifetime.Seconds()))
	}
	s.render(w, r, f, "")
}

// openFlow loads the pending flow of the path; it answers the PSU itself
// (503 without an SCA provider, which only the sandbox's mock is; an error
// page; the failure redirect for an expired flow; the flow's outcome again
// to the browser that ended it; 403 to any browser but the one that
// identified) when the flow cannot go on.
func (s *Service) openFlow(w http.ResponseWriter, r *http.Request) (*store.SCAFlow, bool) {
	if !s.identifies() {
		scaError(w, errNoSCAProvider, http.StatusServiceUnavailable)
		return nil, false
	}
	f, err := s.cfg.Store.GetSCAFlow(r.Context(), r.PathValue("flowId"))
	switch {
	case errors.Is(err, store.ErrNotFound), err == nil && f.Purpose == PurposePSUConsents:
		scaError(w, errUnknownLink, http.StatusNotFound)
		return nil, false
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return nil, false
	case f.State != store.FlowPending && fromBrowser(r, f):
		// A second click on a form that already ended the flow.
		s.replay(w, r, f.ID)
		return nil, false
	case f.State != store.FlowPending:
		scaError(w, errFinished, http.StatusGone)
		return nil, false
	case !s.cfg.Now().Before(f.ExpiresAt):
		// RedirectURI is the one the gateway validated when the flow was
		// created: the redirect goes nowhere else.
		s.fail(w, r, f, outcomeTooLong, nil)
		return nil, false
	}
	if outcome := s.cfg.Payments.Withdrawn(r.Context(), f); outcome != nil {
		// Deleting a basket ends its flow: the PSU meets the end at
		// the link; the payments stay awaiting SCA on their own.
		s.fail(w, r, f, outcome, nil)
		return nil, false
	}
	switch {
	case f.SessionHash != "" && !fromBrowser(r, f):
		if before, ok := browserCookie(r); ok && r.Method == http.MethodPost && r.PostForm.Get("step") == stepIdentify && s.ident.formStep() == stepIdentify {
			if _, mine := boundTo(f, before); mine {
				// The browser that identified, submitting its
				// identification again: it may have dropped the first
				// answer (a double-click on a slow connection).
				s.identify(w, r, f, strings.TrimSpace(r.PostForm.Get("customerNumber")))
				return nil, false
			}
		}
		scaError(w, errOtherBrowser, http.StatusForbidden)
		return nil, false
	}
	return f, true
}

// step says which form the flow needs next.
func step(f *store.SCAFlow) string {
	switch {
	case f.CustomerID == "":
		return "identify"
	case f.Context == "":
		return "context"
	case f.Purpose == store.PurposeUser, f.Purpose == store.PurposePayment, f.Purpose == store.PurposeBasket, f.Purpose == store.PurposeCancellation:
		return "authorise"
	default:
		return "accounts"
	}
}

func (s *Service) render(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, problem string) {
	v := scaView{Title: "Authorise access", TPP: tppName(f), Step: step(f), Action: scaHref(r, f.ID), CSRF: f.CSRF, Error: problem, Sandbox: s.cfg.Sandbox, Login: s.ident.formStep() == stepLogin}
	// The app/biometric variant the contract asks of a sandbox (§3): an
	// identity provider is asked for the app itself (login.go).
	v.App = f.AppPreferred && s.cfg.Sandbox && !v.Login
	switch f.Purpose {
	case store.PurposePayment:
		v.Title, v.Asks, v.Payments = "Approve a payment", "asks you to approve a payment", true
	case store.PurposeBasket:
		v.Title, v.Asks, v.Payments = "Approve payments", "asks you to approve these payments", true
	case store.PurposeCancellation:
		v.Title, v.Asks, v.Cancellation = "Cancel a payment", "asks to cancel a payment you approved", true
	case store.PurposeUser:
		v.Asks = "asks to start payments that you then approve"
	default:
		v.Asks = "asks for access to your accounts"
	}
	ctx := r.Context()
	// What is approved shows from the first step, before the PSU
	// identifies: it is the TPP's own instruction, nothing of the PSU's.
	v.Summary = s.cfg.Payments.Summary(ctx, f)
	if f.CustomerID != "" {
		c, err := s.cfg.Store.GetCustomer(ctx, f.CustomerID)
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		v.Customer = c.Name
	}
	switch v.Step {
	case "context":
		ags, err := s.cfg.Store.ListAgreementsOf(ctx, f.CustomerID)
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		v.Agreements = ags
	case "accounts":
		choices, err := s.offered(ctx, f)
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		v.Accounts = choices
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	// form-action also governs where a form's redirect may lead: the
	// TPP-Redirect-URI's origin, and nothing else.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+origin(f.RedirectURI)+"; frame-ancestors 'self'")
	h.Set("Referrer-Policy", "no-referrer")
	_ = scaTemplate.Execute(w, v)
}

// tppName is how the PSU's pages name the flow's TPP: its registered
// name, else (a flow stored before names were kept) its organisation
// identifier.
func tppName(f *store.SCAFlow) string {
	if f.TPPName != "" {
		return f.TPPName
	}
	return f.TPP
}

// origin returns scheme://host[:port] of a redirect URI for a CSP source
// list, or 'none' when it does not parse (the redirect is then refused).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || strings.ContainsAny(u.Host, " ;,'") {
		return "'none'"
	}
	return u.Scheme + "://" + u.Host
}

// offered lists the accounts the PSU may consent to in the flow's context:
// its own accounts and card accounts (PRIVATE), or the accounts of the
// chosen agreement it may view (CORPORATE: VIEW; "the bank may drop
// payment permission on an account that stays readable", so paying from
// one also needs REGISTER, see debitRight).
func (s *Service) offered(ctx context.Context, f *store.SCAFlow) ([]accountChoice, error) {
	var accounts []store.Account
	if f.Context == "CORPORATE" {
		ag, err := s.cfg.Store.GetAgreement(ctx, f.AgreementID)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, e := range ag.Engagements {
			if e.CustomerID == f.CustomerID && slices.Contains(e.Roles, "VIEW") {
				ids = append(ids, e.AccountID)
			}
		}
		a, err := s.cfg.Store.ListAccounts(ctx, store.KindAccount, ids)
		if err != nil {
			return nil, err
		}
		c, err := s.cfg.Store.ListAccounts(ctx, store.KindCardAccount, ids)
		if err != nil {
			return nil, err
		}
		accounts = append(a, c...)
	} else {
		var err error
		if accounts, err = s.cfg.Store.ListCustomerAccounts(ctx, f.CustomerID); err != nil {
			return nil, err
		}
	}
	// Accounts before card accounts, each in account-number order, so the
	// page reads the same every time.
	sort.SliceStable(accounts, func(i, j int) bool {
		a, b := accounts[i], accounts[j]
		if a.Kind != b.Kind {
			return a.Kind == store.KindAccount
		}
		return a.IBAN+a.MaskedPAN < b.IBAN+b.MaskedPAN
	})
	out := make([]accountChoice, 0, len(accounts))
	for _, a := range accounts {
		label := a.Name + " " + a.IBAN
		if a.Kind == store.KindCardAccount {
			label = a.Name + " card " + a.MaskedPAN
		}
		out = append(out, accountChoice{ID: a.ID, Label: label})
	}
	return out, nil
}

// Submit takes one form submission of the flow.
func (s *Service) Submit(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		scaError(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	f, ok := s.openFlow(w, r)
	if !ok {
		return
	}
	if !fromBrowser(r, f) {
		scaError(w, "This form did not come from the bank's page. Start again from the service you came from.", http.StatusForbidden)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(f.CSRF)) != 1 {
		if f.SessionHash != "" {
			// The PSU's own browser (openFlow checked its secret) posting
			// a form from before identification, say a second click on
			// "Continue": show the step the flow is at, doing nothing.
			http.Redirect(w, r, scaHref(r, f.ID), http.StatusSeeOther)
			return
		}
		scaError(w, "This form has expired or did not come from the bank's page. Start again from the service you came from.", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	switch r.PostForm.Get("step") {
	case "cancel":
		s.fail(w, r, f, outcomeCancelled, func(ctx context.Context) {
			s.cfg.Payments.Reject(ctx, f)
		})
	case s.ident.formStep():
		if step(f) != "identify" {
			s.render(w, r, f, "")
			return
		}
		s.ident.identifyFlow(w, r, f)
	case "context":
		if step(f) != "context" {
			s.render(w, r, f, "")
			return
		}
		choice := r.PostForm.Get("context")
		if choice == "PRIVATE" {
			f.Context = "PRIVATE"
		} else if id, ok := strings.CutPrefix(choice, "CORPORATE:"); ok && s.engaged(ctx, f.CustomerID, id) {
			f.Context, f.AgreementID = "CORPORATE", id
		} else {
			s.render(w, r, f, "Choose how you act.")
			return
		}
		s.advance(w, r, f)
	case "confirm":
		switch step(f) {
		case "accounts":
			s.confirm(w, r, f)
		case "authorise":
			s.complete(w, r, f, nil)
		default:
			s.render(w, r, f, "")
		}
	default:
		s.render(w, r, f, "")
	}
}

// engaged reports whether customerID takes part in agreement id.
func (s *Service) engaged(ctx context.Context, customerID, id string) bool {
	ags, err := s.cfg.Store.ListAgreementsOf(ctx, customerID)
	if err != nil {
		return false
	}
	for _, a := range ags {
		if a.ID == id {
			return true
		}
	}
	return false
}

// identify takes an identification number. Each attempt is counted on the
// flow before the number is looked up, so parallel guesses are bounded too;
// the attempt that uses up MaxIdentifyAttempts without success ends the
// flow. Success binds the flow to this browser. f may be bound already to
// this browser (openFlow let its earlier cookie through): then nothing but
// the same number gets an answer other than errOtherBrowser's, and nothing
// ends the flow.
func (s *Service) identify(w http.ResponseWriter, r *http.Request, f *store.SCAFlow, number string) {
	ctx := r.Context()
	bound := f.SessionHash != ""
	tooMany := func() {
		if bound {
			scaError(w, errOtherBrowser, http.StatusForbidden)
			return
		}
		s.fail(w, r, f, outcomeTooMany, func(ctx context.Context) {
			s.cfg.Payments.Reject(ctx, f)
		})
	}
	n, err := s.cfg.Store.CountSCAFlowAttempt(ctx, f.ID)
	switch {
	case errors.Is(err, store.ErrConflict):
		s.replay(w, r, f.ID) // the flow ended meanwhile
		return
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case n > MaxIdentifyAttempts:
		tooMany()
		return
	}
	// A number no customer can have (NUL, invalid UTF-8, over-long) is a
	// wrong number, not a question for the store (PostgreSQL refuses such
	// text with an error).
	var c *store.Customer
	err = store.ErrNotFound
	if pathid.Plausible(number) {
		// In the sandbox of the TPP that started the flow.
		c, err = s.cfg.Store.GetCustomerByNumber(ctx, store.OwnerOf(s.cfg.Sandbox, f.TPP), number)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	if err != nil || c.Type != store.CustomerPrivate || (bound && c.ID != f.CustomerID) {
		if n >= MaxIdentifyAttempts || bound {
			tooMany()
			return
		}
		s.render(w, r, f, "Unknown identification number. Check it and try again.")
		return
	}
	before, _ := browserCookie(r) // fromBrowser or openFlow checked it
	if f.SessionHash == "" {
		secret, err := bindBrowser(f, before)
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		f.CustomerID = c.ID
		err = s.cfg.Store.UpdateSCAFlow(ctx, f, store.FlowPending)
		if err == nil {
			s.observeSCA(StepIdentified, "")
			setFlowCookie(w, r, f, secret, int(FlowLifetime.Seconds()))
			http.Redirect(w, r, scaHref(r, f.ID), http.StatusSeeOther)
			return
		}
		if !errors.Is(err, store.ErrConflict) {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		if f, err = s.cfg.Store.GetSCAFlow(ctx, f.ID); err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
	}
	// Bound already. To this browser, by its other submission of the same
	// number, with nothing done since? Then that binding is this answer's
	// too; the secret is derived again, as only this browser can have it.
	secret, mine := boundTo(f, before)
	if !mine || f.State != store.FlowPending || f.CustomerID != c.ID || step(f) != "context" {
		s.replay(w, r, f.ID)
		return
	}
	setFlowCookie(w, r, f, secret, int(FlowLifetime.Seconds()))
	http.Redirect(w, r, scaHref(r, f.ID), http.StatusSeeOther)
}

// advance stores the flow's progress and shows the next step.
func (s *Service) advance(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	if s.save(w, r, f) {
		http.Redirect(w, r, scaHref(r, f.ID), http.StatusSeeOther)
	}
}

// save stores a pending flow's progress; a lost compare-and-set means
// another tab (or browser, before identification) moved the flow on.
func (s *Service) save(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) bool {
	err := s.cfg.Store.UpdateSCAFlow(r.Context(), f, store.FlowPending)
	switch {
	case errors.Is(err, store.ErrConflict):
		scaError(w, "This authorisation changed in another window. Start again from the service you came from.", http.StatusConflict)
		return false
	case err != nil:
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return false
	}
	return true
}

// confirm completes a consent flow with the chosen accounts.
func (s *Service) confirm(w http.ResponseWriter, r *http.Request, f *store.SCAFlow) {
	ctx := r.Context()
	offered, err := s.offered(ctx, f)
	if err != nil {
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	}
	allowed := map[string]bool{}
	for _, o := range offered {
		allowed[o.ID] = true
	}
	var chosen []string
	for _, id := range r.PostForm["account"] {
		if !allowed[id] {
			s.render(w, r, f, "Choose among the accounts shown.")
			return
		}
		chosen = append(chosen, id)
	}
	if len(chosen) == 0 {
		s.render(w, r, f, "Choose at least one account, or cancel.")
		return
	}
	s.complete(w, r, f, chosen)
}
