package backend

import (
	"net/http"
	"time"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

// Lifetimes from the interface description.
const (
	// SessionLifetime is how long a TPP-Session-ID stays valid after SCA.
	SessionLifetime = time.Hour
	// ConsentLifetime is how long a consent (and SCA for account access) lasts.
	ConsentLifetime = 180 * 24 * time.Hour
	// FlowLifetime is how long a PSU has to complete an SCA page flow.
	FlowLifetime = 15 * time.Minute
	// HistoryWithoutPSU is how far back transactions are served when the PSU
	// is not present.
	HistoryWithoutPSU = 90 * 24 * time.Hour
	// DefaultPageSize is the transaction page size without a limit.
	DefaultPageSize = 200
)

// Config builds a Server.
type Config struct {
	// Store is the persistence.
	Store store.Store
	// Tokens verifies the gateway's X-Obgw-Context tokens.
	Tokens *tppcontext.Verifier
	// Sandbox enables sandbox behaviour (the mocked SCA page, http://localhost
	// redirects).
	Sandbox bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the backend's HTTP handler.
type Server struct {
	cfg Config
	mux *http.ServeMux
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.routes()
	return s
}

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
	// mux.Handler does not set path values: serve through the mux itself.
	s.mux.ServeHTTP(w, r)
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
func (p *statusProbe) WriteHeader(s int)           { p.status = s }

func collection(k store.AccountKind) string {
	if k == store.KindCardAccount {
		return "/v1/card-accounts"
	}
	return "/v1/accounts"
}
