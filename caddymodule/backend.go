package caddymodule

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/obgw/obgw/backend"
	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/tppcontext"
)

func init() {
	caddy.RegisterModule(Backend{})
}

// Backend is the obgw_backend handler: the bank backend (consents, the SCA
// page, accounts) as a terminal handler. In the single-process default it
// runs behind obgw_verify on the same server and shares the obgw app's
// context key; as its own service it is given the gateway's context_key.
// The database is opened on the first request, not in Provision, so that
// `caddy validate` needs no database and a database that is down at start
// is retried instead of failing the whole configuration.
type Backend struct {
	// Database is "" (embedded SQLite under DataDir), a SQLite file path, or
	// a postgres:// URL.
	Database string `json:"database,omitempty"`
	// DataDir holds the SQLite file (default: Caddy's data directory/obgw,
	// and its sandbox subdirectory in a sandbox).
	DataDir string `json:"data_dir,omitempty"`
	// ContextKey is the base64 HS256 secret of the gateway's context tokens.
	// Empty: the obgw app's key (single process). Runtime placeholders
	// ({env.OBGW_CONTEXT_KEY}) are expanded at provision time, keeping the
	// key out of the JSON configuration; so are the database URL's.
	ContextKey string `json:"context_key,omitempty"`
	// ContextKeyFile is a file holding the context key, read at provision
	// time (instead of context_key).
	ContextKeyFile string `json:"context_key_file,omitempty"`
	// Environment is sandbox or production; empty: the obgw app's, or
	// production.
	Environment string `json:"environment,omitempty"`
	// BatchTimes are the times of day (HH:MM, Europe/Oslo) of the simulated
	// payment batch runs in sandbox; default five a day. Production runs
	// none (the bank's own settlement does).
	BatchTimes []string `json:"batch_times,omitempty"`
	// SCAOIDC is the bank's identity provider at which PSUs log in on the
	// SCA pages. Production needs it: a production backend without it
	// does not start. A sandbox without it identifies PSUs by customer
	// number (the mock page).
	SCAOIDC *SCAOIDC `json:"sca_oidc,omitempty"`

	tokens      *tppcontext.Verifier
	idp         *idp.RelyingParty
	idpRedirect string
	logger      *zap.Logger
	slog        *slog.Logger
	shared      *sharedStore
	poolKey     string

	mu     *sync.Mutex // guards server; a pointer so Backend stays copyable
	server *backend.Server
}

// CaddyModule returns the Caddy module information.
func (Backend) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.obgw_backend",
		New: func() caddy.Module { return new(Backend) },
	}
}

// Provision sets up token verification; it opens no database.
func (b *Backend) Provision(ctx caddy.Context) error {
	b.logger = ctx.Logger()
	b.slog = ctx.Slogger()
	b.mu = new(sync.Mutex)
	warnLiteralSecret(b.logger, "context_key", b.ContextKey)
	secret, err := secretValue("context_key", b.ContextKey, b.ContextKeyFile)
	if err != nil {
		return fmt.Errorf("obgw_backend: %v", err)
	}
	if secret != "" {
		key, derr := base64.StdEncoding.DecodeString(secret)
		if derr != nil {
			return fmt.Errorf("obgw_backend: context_key is not base64: %v", derr)
		}
		b.tokens, err = tppcontext.NewVerifier(key)
		if err != nil {
			return fmt.Errorf("obgw_backend: context_key: %v", err)
		}
	}
	// The obgw app: its context key when none is given, and the one place
	// background work runs. A backend-only process has no obgw global
	// options; the app then exists only for that work.
	appIface, err := ctx.App("obgw")
	if err != nil {
		return fmt.Errorf("obgw_backend: loading the obgw app: %v", err)
	}
	app := appIface.(*App)
	if b.tokens == nil {
		if app.backendOnly {
			return fmt.Errorf("obgw_backend: set context_key (the gateway's), or configure the obgw app in the global options")
		}
		if b.tokens, err = app.ContextVerifier(); err != nil {
			return err
		}
		if b.Environment == "" {
			b.Environment = app.Environment
		}
	}
	if b.Environment == "" {
		b.Environment = EnvProduction
	}
	if b.Environment != EnvSandbox && b.Environment != EnvProduction {
		return fmt.Errorf("obgw_backend: environment must be sandbox or production, not %q", b.Environment)
	}
	if app.backendOnly && b.Environment == EnvProduction {
		// The app's start then refuses TLS links of the test PKI.
		app.backendProduction = true
	}
	if b.idp, b.idpRedirect, err = b.SCAOIDC.relyingParty(b.logger); err != nil {
		return fmt.Errorf("obgw_backend: sca_oidc: %v", err)
	}
	if b.Environment == EnvProduction {
		if err := b.SCAOIDC.refusePublished(); err != nil {
			return fmt.Errorf("obgw_backend: sca_oidc: %v", err)
		}
	}
	if b.idp == nil && b.Environment == EnvProduction {
		const why = "production needs an SCA provider, and sca_oidc has no issuer: " +
			"set sca_oidc { issuer, client_id, client_secret } (in the shipped Caddyfile OBGW_SCA_OIDC_ISSUER, " +
			"OBGW_SCA_OIDC_CLIENT_ID and OBGW_SCA_OIDC_CLIENT_SECRET), or run a sandbox (OBGW_ENV=sandbox)"
		// Said on its own line first: Caddy's error wraps it in the
		// path of every module that provisioned it (issue 33, 4).
		b.logger.Error("obgw cannot start: " + why)
		return fmt.Errorf("obgw_backend: %s", why)
	}
	if b.idp != nil {
		// A provider that cannot be discovered (a wrong issuer, or one
		// that is down) is told at start, naming the setting, not first
		// at a PSU's login. It does not stop the start: account
		// information under existing consents needs no login. Once per
		// provider and configuration, however many routes use it.
		if _, checked := app.idpChecked.LoadOrStore(b.idp.Issuer(), true); !checked {
			go b.checkIdP(ctx)
		}
	}
	if b.DataDir == "" {
		b.DataDir = defaultDataDir(b.Environment)
	}
	url, err := secretValue("database", b.Database, "")
	if err != nil {
		return fmt.Errorf("obgw_backend: %v", err)
	}
	if url == "" {
		url = filepath.Join(b.DataDir, "obgw.db")
	}
	sandboxEnv := b.Environment == EnvSandbox
	b.poolKey = url
	v, _, err := stores.LoadOrNew(url, func() (caddy.Destructor, error) {
		return &sharedStore{url: url}, nil
	})
	if err != nil {
		return err
	}
	b.shared = v.(*sharedStore)
	if sandboxEnv {
		if len(b.BatchTimes) == 0 {
			b.BatchTimes = backend.DefaultBatchTimes
		}
		times, err := backend.ParseBatchTimes(b.BatchTimes)
		if err != nil {
			return fmt.Errorf("obgw_backend: %v", err)
		}
		app.jobs.scheduleBatches(url, times, b.ready)
	}
	app.jobs.scheduleSweeps(url, b.ready)
	return nil
}

// ready returns the backend server once the database is open.
func (b *Backend) ready(ctx context.Context) (*backend.Server, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.server != nil {
		return b.server, nil
	}
	st, err := b.shared.get(ctx)
	if err != nil {
		return nil, err
	}
	b.server = backend.New(backend.Config{Store: st, Tokens: b.tokens, Sandbox: b.Environment == EnvSandbox, Logger: b.slog,
		IdP: b.idp, IdPRedirectURL: b.idpRedirect, ObserveSCA: obgwMetrics.scaStep})
	return b.server, nil
}

// ServeHTTP answers the request from the backend.
func (b *Backend) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	srv, err := b.ready(r.Context())
	if err != nil {
		b.logger.Error("backend database unavailable", zap.Error(err))
		e := bgerror.New(bgerror.CodeServiceUnavailable, "the bank's systems are temporarily unavailable; retry later")
		e.Write(w)
		obgwMetrics.answered(requestFamily(r), e.Status, e.Code, byBackend)
		return nil
	}
	// Under a base path stripped before this handler (uri strip_prefix),
	// the backend's links carry it.
	if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && orig.URL != nil &&
		len(orig.URL.Path) > len(r.URL.Path) && strings.HasSuffix(orig.URL.Path, r.URL.Path) {
		r = r.WithContext(respond.WithBasePath(r.Context(), orig.URL.Path[:len(orig.URL.Path)-len(r.URL.Path)]))
	}
	// The answer counted by status and Berlin Group code (responses.go).
	rec := &answerRecorder{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	srv.ServeHTTP(rec, r)
	status, code := rec.result()
	obgwMetrics.answered(requestFamily(r), status, code, byBackend)
	return nil
}

// Cleanup releases this configuration's use of the shared store.
func (b *Backend) Cleanup() error {
	_, err := stores.Delete(b.poolKey)
	return err
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Backend)(nil)
	_ caddy.CleanerUpper          = (*Backend)(nil)
	_ caddyhttp.MiddlewareHandler = (*Backend)(nil)
)

// checkIdP discovers the identity provider once at start and logs the
// outcome: an error naming sca_oidc's issuer when it cannot be discovered.
func (b *Backend) checkIdP(ctx caddy.Context) {
	err := b.idp.Check(ctx)
	switch {
	case ctx.Err() != nil:
		// This configuration was replaced or stopped meanwhile.
	case err != nil:
		b.logger.Error("sca_oidc issuer: the identity provider cannot be discovered, so PSUs cannot log in until it can: check the issuer URL (OBGW_SCA_OIDC_ISSUER) and that the provider answers",
			zap.String("issuer", b.idp.Issuer()), zap.Error(err))
	default:
		b.logger.Info("sca_oidc: identity provider discovered", zap.String("issuer", b.idp.Issuer()))
	}
}
