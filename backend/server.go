package backend

import (
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

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
func (p *statusProbe) WriteHeader(s int)           { p.status = s }

func collection(k store.AccountKind) string {
	if k == store.KindCardAccount {
		return "/v1/card-accounts"
	}
	return "/v1/accounts"
}
