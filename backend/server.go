package backend

import (
	"log/slog"
	"time"

	"github.com/obgw/obgw/backend/ais"
	"github.com/obgw/obgw/backend/fx"
	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/pis"
	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/tppcontext"
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
	// Logger receives what the TPP's answer cannot say (a store failure's
	// cause); nil discards it.
	Logger *slog.Logger
	// Rates quotes the exchange rates at which payments in another
	// currency than an account's are converted (backend/pis/fx.go); nil means the
	// fixed fx.Sandbox table in a sandbox and fx.None (no conversion:
	// such payments are rejected at SCA) elsewhere.
	Rates fx.Source
	// IdP authenticates PSUs at the bank's OpenID Connect identity
	// provider on the SCA pages (backend/sca/login.go). Without it PSUs identify
	// by a customer number typed in, the sandbox's mock, which only a
	// Sandbox offers: outside the sandbox the pages then answer 503.
	IdP *idp.RelyingParty
	// IdPRedirectURL is the redirect URI registered at the provider, which
	// must reach this backend's callback (/v1/sca/callback under the base
	// path); empty: the request's host and base path, over https.
	IdPRedirectURL string
	// ObserveSCA, when set, is told each step of the SCA funnel
	// (backend/sca/funnel.go): the step, and a failed flow's reason.
	ObserveSCA func(step, reason string)
}

// Server is the backend's HTTP handler.
type Server struct {
	cfg Config
	mux *routeMux
	log *slog.Logger
	// ais serves account information (backend/ais).
	ais *ais.Service
	// pis serves payment initiation (backend/pis).
	pis *pis.Service
	// sca serves the PSU's pages and starts the concerns' SCA flows
	// (backend/sca).
	sca *sca.Service
	// sandbox serves the sandbox's operations and opens each TPP's
	// sandbox (backend/sandbox).
	sandbox *sandbox.Service
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Rates == nil {
		cfg.Rates = fx.None{}
		if cfg.Sandbox {
			cfg.Rates = fx.Sandbox{}
		}
	}
	s := &Server{cfg: cfg, mux: newRouteMux(), log: cfg.Logger,
		ais:     &ais.Service{Store: cfg.Store, Now: cfg.Now, Log: cfg.Logger},
		pis:     &pis.Service{Store: cfg.Store, Rates: cfg.Rates, Sandbox: cfg.Sandbox, Now: cfg.Now, Log: cfg.Logger},
		sandbox: &sandbox.Service{Store: cfg.Store, Now: cfg.Now, Log: cfg.Logger},
	}
	// The concerns and the SCA know each other only through interfaces:
	// the pages call what a flow authorises (sca.Payments, sca.Consents),
	// the concerns start flows (ais.Flows, pis.Flows).
	s.sca = sca.New(sca.Config{
		Store: cfg.Store, Payments: s.pis, Consents: s.ais, Sandbox: cfg.Sandbox, Now: cfg.Now, Logger: cfg.Logger,
		IdP: cfg.IdP, IdPRedirectURL: cfg.IdPRedirectURL, ObserveSCA: cfg.ObserveSCA,
	})
	s.ais.Flows, s.pis.Flows = s.sca, s.sca
	s.routes()
	return s
}
