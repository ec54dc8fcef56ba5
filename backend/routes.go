package backend

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

func (s *Server) routes() {
	tpp := func(h func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error) http.Handler {
		return s.authenticated("PSP_AI", h)
	}
	pis := func(h func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error) http.Handler {
		return s.authenticated("PSP_PI", h)
	}
	anyRole := func(h func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error) http.Handler {
		return s.authenticated("", h)
	}
	// Consents.
	s.mux.Handle("POST /v1/bank-offered-consents", tpp(s.createConsent))
	s.mux.Handle("POST /v1/consents", tpp(s.createConsent))
	s.mux.Handle("GET /v1/bank-offered-consents/{consentId}", tpp(s.getConsent))
	s.mux.Handle("GET /v1/bank-offered-consents/{consentId}/status", tpp(s.getConsentStatus))
	s.mux.Handle("DELETE /v1/bank-offered-consents/{consentId}", tpp(s.deleteConsent))
	// Accounts and card accounts.
	for _, k := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		base := collection(k)
		s.mux.Handle("GET "+base, tpp(s.listAccounts(k)))
		s.mux.Handle("GET "+base+"/{id}", tpp(s.getAccount(k)))
		s.mux.Handle("GET "+base+"/{id}/balances", tpp(s.getBalances(k)))
		s.mux.Handle("GET "+base+"/{id}/transactions", tpp(s.listTransactions(k)))
		s.mux.Handle("GET "+base+"/{id}/transactions/{transactionId}", tpp(s.getTransaction(k)))
	}
	s.mux.Handle("GET /v1/agreements", tpp(s.listAgreements))
	s.mux.Handle("GET /v1/user", pis(s.getUser))
	s.paymentRoutes(pis)
	s.tppContactRoutes(anyRole)
	if s.cfg.Sandbox {
		s.sandboxRoutes(anyRole)
	}
	// The PSU-facing SCA page: no context token, CSRF-protected.
	s.mux.HandleFunc("GET /v1/sca/{flowId}", s.scaPage)
	s.mux.HandleFunc("POST /v1/sca/{flowId}", s.scaSubmit)
}

// ServeHTTP routes the request. Unknown paths get 404 RESOURCE_UNKNOWN and
// known paths with another method 405 SERVICE_INVALID.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		// The mux's own 404/405 answers are plain text: answer ours.
		rec := &statusProbe{}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			bgerror.New(bgerror.CodeServiceInvalid, r.Method+" is not allowed on this resource").Write(w)
			return
		}
		bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such resource").Write(w)
		return
	}
	if !plausibleIDs(r.URL.EscapedPath()) {
		// An id no resource of ours can have: answer as for an unknown
		// one, alike on every store, without asking the store.
		if strings.Contains(pattern, " /v1/sca/") {
			w.Header().Set("Strict-Transport-Security", scaHSTS)
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "This authorisation link is unknown. Start again from the service you came from.", http.StatusNotFound)
			return
		}
		bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such resource").Write(w)
		return
	}
	// mux.Handler does not set path values: serve through the mux itself.
	s.mux.ServeHTTP(w, r)
}

// MaxIDBytes bounds an id in the path. The store's ids are 29 bytes
// ("enc!!" and 24 characters of URL-safe base64); the gateway's limiter
// allows 128, and so does this.
const MaxIDBytes = 128

// plausibleIDs reports whether every segment of an escaped path, decoded
// as the router decodes it, could be a path value of ours: at most
// MaxIDBytes bytes of valid UTF-8 without control characters (C0, DEL,
// C1; NUL included). The routes' literal segments all are, so the rule
// falls on the ids, products included. It is the one place every path
// value ({id}, {consentId}, {paymentId}, {flowId}...) is checked, before
// any handler: PostgreSQL refuses NUL and invalid UTF-8 in text (an error,
// hence 503, where SQLite found nothing), and an id no resource can have
// should cost no query.
func plausibleIDs(escaped string) bool {
	for len(escaped) > 0 {
		seg := escaped
		if i := strings.IndexByte(escaped, '/'); i >= 0 {
			seg, escaped = escaped[:i], escaped[i+1:]
		} else {
			escaped = ""
		}
		if strings.IndexByte(seg, '%') >= 0 {
			v, err := url.PathUnescape(seg)
			if err != nil {
				return false
			}
			seg = v
		}
		if !plausibleValue(seg) {
			return false
		}
	}
	return true
}

// plausibleValue reports whether v could be a value the store holds as an
// id or key: at most MaxIDBytes bytes of valid UTF-8 without control
// characters. Anything else is looked up nowhere.
func plausibleValue(v string) bool {
	if len(v) > MaxIDBytes || !utf8.ValidString(v) {
		return false
	}
	for _, c := range v {
		if c < 0x20 || (c >= 0x7f && c <= 0x9f) {
			return false
		}
	}
	return true
}

// statusProbe records the status the mux's fallback handler would send.
type statusProbe struct {
	status int
	h      http.Header
}

func (p *statusProbe) Header() http.Header {
	if p.h == nil {
		p.h = http.Header{}
	}
	return p.h
}

func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }

func (p *statusProbe) WriteHeader(s int) { p.status = s }

func collection(k store.AccountKind) string {
	if k == store.KindCardAccount {
		return "/v1/card-accounts"
	}
	return "/v1/accounts"
}

// paymentBase is the path of each payment kind.
var paymentBase = map[string]string{
	store.PaymentSingle:   "/v1/payments",
	store.PaymentPeriodic: "/v1/periodic-payments",
	store.PaymentBulk:     "/v1/bulk-payments",
}

func (s *Server) paymentRoutes(tpp func(func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error) http.Handler) {
	s.mux.Handle("POST /v1/payments/"+InstantProduct+"/fee-information", tpp(s.feeInformation))
	for kind, base := range paymentBase {
		s.mux.Handle("POST "+base+"/{product}", tpp(s.createPayment(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}", tpp(s.getPayment(kind, false)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/status", tpp(s.getPayment(kind, true)))
		s.mux.Handle("DELETE "+base+"/{product}/{paymentId}", tpp(s.cancelPayment(kind)))
		s.mux.Handle("POST "+base+"/{product}/{paymentId}/authorisations", tpp(s.startPaymentAuthorisation(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/authorisations/{authorisationId}", tpp(s.getAuthorisation(kind, PurposePayment, "authorisationId")))
		s.mux.Handle("POST "+base+"/{product}/{paymentId}/cancellation-authorisations", tpp(s.startCancellationAuthorisation(kind)))
		s.mux.Handle("GET "+base+"/{product}/{paymentId}/cancellation-authorisations/{cancellationId}", tpp(s.getAuthorisation(kind, PurposeCancellation, "cancellationId")))
	}
	s.mux.Handle("POST /v1/signing-baskets", tpp(s.createBasket))
	s.mux.Handle("GET /v1/signing-baskets/{basketId}", tpp(s.getBasket(false)))
	s.mux.Handle("GET /v1/signing-baskets/{basketId}/status", tpp(s.getBasket(true)))
	s.mux.Handle("DELETE /v1/signing-baskets/{basketId}", tpp(s.deleteBasket))
	s.mux.Handle("POST /v1/signing-baskets/{basketId}/authorisations", tpp(s.startBasketAuthorisation))
}

// tppContactsPath is the one resource of TPP contact registration: the
// addresses that receive the bank's operational notices.
const tppContactsPath = "/v1/tpp-contacts"

// tppHandler is a handler of a route that needs the gateway's context token.
type tppHandler = func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error

// tppContactRoutes registers GET, PUT and DELETE /v1/tpp-contacts. The
// route's policy names no role, so the gateway admits any PSD2 role the
// certificate and the register both grant; the backend checks that again
// (psd2Role). A TPP only ever reaches its own contacts:
// the record is keyed by the organizationIdentifier the gateway verified.
func (s *Server) tppContactRoutes(verified func(tppHandler) http.Handler) {
	s.mux.Handle("GET "+tppContactsPath, verified(psd2Role(s.getTPPContacts)))
	s.mux.Handle("PUT "+tppContactsPath, verified(psd2Role(s.putTPPContacts)))
	s.mux.Handle("DELETE "+tppContactsPath, verified(psd2Role(s.deleteTPPContacts)))
}

// psd2Role admits only a TPP to which the certificate and the register
// both grant at least one PSD2 role: the gateway checks that on routes
// that name no role, and the backend trusts no check it has not repeated.
func psd2Role(h tppHandler) tppHandler {
	return func(w http.ResponseWriter, r *http.Request, c *tppcontext.Context) *bgerror.Error {
		if len(c.Roles) == 0 {
			return bgerror.New(bgerror.CodeRoleInvalid, "this service needs a PSD2 role that the certificate and the register both grant")
		}
		return h(w, r, c)
	}
}

// sandboxRoutes registers the mock-data operations; they exist only in a
// sandbox deployment (elsewhere the paths are unknown: 404).
func (s *Server) sandboxRoutes(tpp func(func(http.ResponseWriter, *http.Request, *tppcontext.Context) *bgerror.Error) http.Handler) {
	s.mux.Handle("POST /v1/sandbox/initialize", tpp(s.initializeSandbox))
	s.mux.Handle("GET /v1/sandbox/customers", tpp(s.listMockCustomers))
	s.mux.Handle("POST /v1/sandbox/customers", tpp(s.createMockCustomer))
	s.mux.Handle("GET /v1/sandbox/customers/{customerId}", tpp(s.getMockCustomer))
	s.mux.Handle("DELETE /v1/sandbox/customers/{customerId}", tpp(s.deleteMockCustomer))
	for _, k := range []store.AccountKind{store.KindAccount, store.KindCardAccount} {
		base := "/v1/sandbox" + strings.TrimPrefix(collection(k), "/v1")
		s.mux.Handle("POST "+base, tpp(s.createMockAccount(k)))
		s.mux.Handle("GET "+base+"/{mockId}", tpp(s.getMockAccount(k)))
		s.mux.Handle("PUT "+base+"/{mockId}/balances", tpp(s.putMockBalances(k)))
		s.mux.Handle("POST "+base+"/{mockId}/transactions", tpp(s.addMockTransactions(k)))
	}
	s.mux.Handle("GET /v1/sandbox/agreements", tpp(s.listMockAgreements))
	s.mux.Handle("POST /v1/sandbox/agreements", tpp(s.createMockAgreement))
	s.mux.Handle("POST /v1/sandbox/payment-batch-runs", tpp(s.runBatch))
}
