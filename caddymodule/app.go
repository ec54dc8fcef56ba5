package caddymodule

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/go-jose/go-jose/v4"
	"github.com/obgw/obgw/gateway"
	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/gateway/seal"
	"github.com/obgw/obgw/gateway/trustlist"
	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/pkcs11key"

	"github.com/obgw/obgw/tppcontext"
)

func init() {
	caddy.RegisterModule(App{})
}

// now is the clock of this package's decisions (fixes in effect) and of
// the background jobs; tests swap it.
var now = time.Now

// Environments.
const (
	EnvSandbox    = "sandbox"
	EnvProduction = "production"
)

// App is the obgw app: the state every obgw handler of a configuration
// shares (trusted QTSP CAs, the certificate cache, the registry cache, the
// replay store and the context-token key). Provision does no network I/O,
// so `caddy validate` works without Redis or the register.
type App struct {
	// QTSPCAs is the path of a PEM bundle of trusted QTSP CA certificates
	// (roots and issuing CAs; each is a trust anchor). Required.
	QTSPCAs string `json:"qtsp_cas,omitempty"`
	// QTSPTrustedList is the EU List of Trusted Lists (ETSI TS 119 612)
	// instead of qtsp_cas: its https URL, or a directory of an air-gapped
	// copy (eu-lotl.xml and the national lists, <CC>.xml or
	// TSL_<CC>.xml). The LOTL is verified with the signers of
	// qtsp_trusted_list_signers, each national list with those the LOTL
	// names for it; a CA is trusted for seals or website authentication
	// as its list says it was when a certificate was issued.
	QTSPTrustedList string `json:"qtsp_trusted_list,omitempty"`
	// QTSPTrustedListSigners is a PEM file of the LOTL's signing
	// certificates as the Official Journal publishes them; default those
	// of OJ C/2026/1944, built in.
	QTSPTrustedListSigners string `json:"qtsp_trusted_list_signers,omitempty"`
	// QTSPTrustedListRefresh is how often the lists are fetched (default
	// 24h).
	QTSPTrustedListRefresh caddy.Duration `json:"qtsp_trusted_list_refresh,omitempty"`
	// QTSPTrustedListGrace is how long past its NextUpdate a list's CAs
	// are still trusted; after it their certificates fail closed (503)
	// until a current list is fetched (default 7 days).
	QTSPTrustedListGrace caddy.Duration `json:"qtsp_trusted_list_grace,omitempty"`
	// CRL is the path of a PEM file of X.509 CRLs issued by those CAs.
	// Certificates they list are refused as revoked. Optional.
	CRL string `json:"crl,omitempty"`
	// Registry is the TPP register: a JSON file path, or an http(s) URL of a
	// register answering GET <url>/<organizationIdentifier>. Required
	// unless registry_eba is set; with it, Registry lists the TPPs the
	// EBA register cannot (credit institutions acting as TPPs), asked
	// only for those the EBA register does not know.
	Registry string `json:"registry,omitempty"`
	// RegistryEBA is the EBA's PSD2 register (registry.EBASource): an
	// http(s) URL serving its JSON export, a ZIP holding it, or the EBA's
	// file metadata pointing at the latest ZIP; or such a file (an
	// air-gapped copy). Fetched in the background every
	// registry_refresh, kept in trust_store.
	RegistryEBA string `json:"registry_eba,omitempty"`
	// RegistryCountry is the bank's country (ISO 3166, default NO): a TPP
	// of the EBA register holds the roles of the services authorised in
	// or passported to it.
	RegistryCountry string `json:"registry_country,omitempty"`
	// RegistryRefresh is how often the EBA register is fetched, with a
	// conditional GET (default 24h).
	RegistryRefresh caddy.Duration `json:"registry_refresh,omitempty"`
	// RegistryMaxAge is how old the EBA register may grow while it
	// cannot be fetched before TPPs are refused with 503 (default 7 days,
	// at least registry_refresh).
	RegistryMaxAge caddy.Duration `json:"registry_max_age,omitempty"`
	// TrustSourcesCA is a PEM file of CA certificates trusted, besides the
	// system's, for fetching trust sources over https (a bank's
	// TLS-inspecting proxy).
	TrustSourcesCA string `json:"trust_sources_ca,omitempty"`
	// TrustStore is the database downloaded trust sources are kept in and
	// shared through: a postgres:// URL (every instance on it fetches in
	// turn and serves the same), or a SQLite file; default trust.db in
	// Caddy's data directory/obgw. Runtime placeholders are expanded.
	TrustStore string `json:"trust_store,omitempty"`
	// RegistryTTL is how long a found register entry is reused (default 5m).
	RegistryTTL caddy.Duration `json:"registry_ttl,omitempty"`
	// RegistryNegativeTTL is how long "not registered" is reused (default 1m).
	RegistryNegativeTTL caddy.Duration `json:"registry_negative_ttl,omitempty"`
	// RegistryMaxStale is how long past its TTL an entry is served while the
	// register cannot be reached (default 1h).
	RegistryMaxStale caddy.Duration `json:"registry_max_stale,omitempty"`
	// CertCacheSize is how many verified certificates are kept (default 10000).
	CertCacheSize int `json:"cert_cache_size,omitempty"`
	// CertCacheTTL bounds how long a certificate verdict is reused
	// (default 10m; never past the certificate's expiry).
	CertCacheTTL caddy.Duration `json:"cert_cache_ttl,omitempty"`
	// ClockSkew is the allowed Date deviation either way (default 60s).
	ClockSkew caddy.Duration `json:"clock_skew,omitempty"`
	// ContextKey is the base64 HS256 secret (at least 32 bytes) that signs
	// the X-Obgw-Context token. A split deployment sets the same key on the
	// gateway and the backend; when empty, a random key is made per process,
	// which suits the single-process default. Runtime placeholders are
	// expanded at provision time, so `{env.OBGW_CONTEXT_KEY}` keeps the key
	// out of the JSON configuration the admin API serves.
	ContextKey string `json:"context_key,omitempty"`
	// ContextKeyFile is a file holding the context key (instead of
	// context_key), read at provision time.
	ContextKeyFile string `json:"context_key_file,omitempty"`
	// ContextSigningKeyFile is a PEM private key (Ed25519, or ECDSA
	// P-256) that signs the context tokens instead of the HS256 key, for
	// upstreams that verify them with the public key (the JWKS that
	// obgw_context_jwks serves) and so cannot forge them. The token's
	// header names the key (kid: its RFC 7638 thumbprint).
	// A PKCS #11 URI (as for bank_seal_key) names a P-256 key in a token
	// instead.
	ContextSigningKeyFile string `json:"context_signing_key_file,omitempty"`
	// ContextPublishedKeyFiles are PEM keys (public, or private of which
	// the public half is used) published in the JWKS besides the signing
	// key's: the next key before a rotation, the previous one after it.
	ContextPublishedKeyFiles []string `json:"context_published_key_files,omitempty"`
	// ContextAudience is the tokens' aud claim: the upstream they are
	// for, which it should check.
	ContextAudience string `json:"context_audience,omitempty"`
	// Environment is "production" (default) or "sandbox". Only a sandbox
	// identifies a PSU by a customer number and serves /v1/sandbox/*.
	Environment string `json:"environment,omitempty"`
	// Diagnostics turns the signature diagnostics for TPP developers on or
	// off: SIGNATURE_INVALID, Digest and Date errors that name the precise
	// cause and carry the signing string the gateway built, and the
	// signature check (obgw_signature_check, POST
	// /v1/sandbox/signature-check). Unset: on in a sandbox, off in
	// production. On is refused in production: it tells anyone who sends
	// a request how the gateway reads it.
	Diagnostics *bool `json:"diagnostics,omitempty"`

	// BankSealCert and BankSealKey are the bank's QSealC (PEM) and its
	// private key (RSA, or ECDSA P-256): a PEM file, or a key in an HSM
	// named by a PKCS #11 URI (RFC 7512, package pkcs11key:
	// pkcs11:token=...;object=...?module-path=...&pin-source=file:...;
	// the PIN is read from its file, never put in the configuration).
	// obgw_sign signs responses with them. Both or neither.
	BankSealCert string `json:"bank_seal_cert,omitempty"`
	BankSealKey  string `json:"bank_seal_key,omitempty"`
	// BodyMemory is how many bytes of request bodies the gateway holds at
	// once, all requests together (default 64 MiB). Bodies are read only
	// after a request is authenticated, in chunks as bytes arrive; a chunk
	// beyond the budget is refused with 503.
	BodyMemory int64 `json:"body_memory,omitempty"`
	// BodyShare is how many of those bytes the requests of one TPP (by the
	// organizationIdentifier of its QSealC) hold at once (default 4 MiB,
	// at most body_memory): one TPP cannot take the others' memory. It
	// must exceed every obgw_verify max_body.
	BodyShare int64 `json:"body_share,omitempty"`
	// OCSP turns on OCSP revocation checks of TPP certificates (RFC 6960,
	// the responder the certificate names), with the crl file, or else the
	// CRLs the certificates name, as fallback.
	OCSP bool `json:"ocsp,omitempty"`
	// OCSPOverride is the responder to ask instead of the certificates' own.
	OCSPOverride string `json:"ocsp_override,omitempty"`
	// RedisURL, when set, keeps replay protection and the PSU-not-present
	// limits in Redis, shared by every gateway instance: redis://,
	// rediss:// (TLS), Sentinel (redis://h1:26379,h2/0?master_name=NAME) or
	// Cluster (redis://h1,h2?cluster=true). Empty: in this process's memory.
	// No connection is made at provisioning. Runtime placeholders
	// ({env.OBGW_REDIS_URL}) are expanded then, keeping a password out of
	// the JSON configuration.
	RedisURL string `json:"redis_url,omitempty"`

	verifier   *gateway.Verifier
	contextKey []byte
	signingKey *tppcontext.SigningKey // context_signing_key_file's
	seal       *seal.Seal             // bank_seal_cert's and bank_seal_key's
	sealKey    *pkcs11key.Signer      // bank_seal_key's, when in a token
	// contextTokenKey is context_signing_key_file's, when in a token.
	contextTokenKey *pkcs11key.Signer
	listenCheck     *time.Timer        // warnSharedListeners, once after Start
	jwks            jose.JSONWebKeySet // the signing and published keys
	slog            *slog.Logger
	jobs            *jobs
	// backendOnly: no qtsp_cas and no registry, as in a backend-only
	// process without obgw global options; the app runs background work
	// and verifies nothing (obgw_verify refuses to provision).
	backendOnly bool
	// backendProduction: a backend-only process's obgw_backend is a
	// production one (set as obgw_backend provisions).
	backendProduction bool
	bodies            *bodyBudget
	metrics           *metrics
	validity          validity // of the CAs and CRLs loaded, for the metrics
	state             *sharedState
	stateKey          string
	// registryFile is the register when it is a file, for the start-up
	// report; nil for an http register.
	registryFile *registry.File
	// trustSources are the downloaded trust sources (registry_eba,
	// qtsp_trusted_list), kept current while the configuration runs.
	trustSources []*trustSource
	// trustedLists is qtsp_trusted_list's, nil without.
	trustedLists *trustlist.Set
	// idpChecked holds the sca_oidc issuers whose discovery this
	// configuration checks (once each, however many backends use one).
	idpChecked *sync.Map
	ctx        caddy.Context
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "obgw",
		New: func() caddy.Module { return new(App) },
	}
}

// closeKeys releases the tokens of the keys held in one.
func (a *App) closeKeys() {
	for _, k := range []*pkcs11key.Signer{a.sealKey, a.contextTokenKey} {
		if k != nil {
			k.Close()
		}
	}
}

// Provision loads the CA bundle, CRLs and register source and builds the
// verifier. It reads local files, and logs in to the tokens of keys held
// in one (PKCS #11), which it releases when it fails.
func (a *App) Provision(ctx caddy.Context) (err error) {
	defer func() {
		if err != nil {
			a.closeKeys()
		}
	}()
	if a.Environment == "" {
		a.Environment = EnvProduction
	}
	a.slog = ctx.Slogger()
	a.ctx = ctx
	a.jobs = new(jobs)
	a.idpChecked = new(sync.Map)
	// The process's collectors, still counting, in this configuration's
	// registry (a reload brings a new one).
	a.metrics = obgwMetrics
	if err := a.metrics.register(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("obgw: metrics: %v", err)
	}
	a.backendOnly = a.QTSPCAs == "" && a.QTSPTrustedList == "" && a.Registry == "" && a.RegistryEBA == "" && a.ContextKey == "" && a.ContextKeyFile == "" && a.ContextSigningKeyFile == "" && a.RedisURL == ""
	if !a.backendOnly {
		// Before any setting is loaded, so that the error names them all.
		if err := a.refusePublishedTrust(ctx); err != nil {
			return err
		}
	}
	if err := a.loadSeal(); err != nil {
		return err
	}
	if a.backendOnly {
		return nil
	}
	if a.BodyMemory <= 0 {
		a.BodyMemory = DefaultBodyMemory
	}
	if a.BodyShare <= 0 {
		a.BodyShare = DefaultBodyShare
	}
	a.bodies = newBodyBudget(a.BodyMemory, a.BodyShare)
	certs, err := a.certificateVerifier()
	if err != nil {
		return err
	}
	src, err := a.registrySource()
	if err != nil {
		return err
	}
	reg, err := registry.NewCache(src, registry.CacheConfig{
		TTL:         time.Duration(a.RegistryTTL),
		NegativeTTL: time.Duration(a.RegistryNegativeTTL),
		MaxStale:    time.Duration(a.RegistryMaxStale),
	})
	if err != nil {
		return err
	}
	warnLiteralSecret(ctx.Logger(), "context_key", a.ContextKey)
	key, err := secretValue("context_key", a.ContextKey, a.ContextKeyFile)
	if err != nil {
		return fmt.Errorf("obgw: %v", err)
	}
	if key != "" {
		a.contextKey, err = base64.StdEncoding.DecodeString(key)
		if err != nil {
			return fmt.Errorf("obgw: context_key is not base64: %v", err)
		}
	} else {
		a.contextKey = make([]byte, 32)
		if _, err := rand.Read(a.contextKey); err != nil {
			return err
		}
	}
	issuer, err := a.contextIssuer()
	if err != nil {
		return err
	}
	// Replay and limit state outlive config reloads: a reload must not
	// forget which request ids were used or how many calls were made.
	redisURL, err := secretValue("redis_url", a.RedisURL, "")
	if err != nil {
		return fmt.Errorf("obgw: %v", err)
	}
	a.stateKey = "memory"
	if redisURL != "" {
		a.stateKey = "redis " + redisURL
	}
	st, _, err := sharedStates.LoadOrNew(a.stateKey, func() (caddy.Destructor, error) {
		return newSharedState(redisURL)
	})
	if err != nil {
		return fmt.Errorf("obgw: redis_url: %v", err)
	}
	a.state = st.(*sharedState)
	a.verifier, err = gateway.NewVerifier(gateway.Config{
		Certificates:   certs,
		Registry:       reg,
		Replay:         a.state.replay,
		ReplayFallback: a.state.fallback,
		Limiter:        a.state.limiter,
		Issuer:         issuer,
		ClockSkew:      time.Duration(a.ClockSkew),
		CertCacheSize:  a.CertCacheSize,
		CertCacheTTL:   time.Duration(a.CertCacheTTL),
		Diagnostics:    a.DiagnosticsOn(),
	})
	return err
}

func (a *App) certificateVerifier() (*eidas.Verifier, error) {
	if a.QTSPTrustedList != "" {
		return a.trustedListsVerifier()
	}
	if a.QTSPCAs == "" {
		return nil, fmt.Errorf("obgw: qtsp_cas is required: a PEM bundle of trusted QTSP CAs, or qtsp_trusted_list, the EU trusted lists")
	}
	raw, err := os.ReadFile(a.QTSPCAs)
	if err != nil {
		return nil, fmt.Errorf("obgw: qtsp_cas: %v", err)
	}
	cas, err := pemfile.Certificates(raw)
	if err != nil {
		return nil, fmt.Errorf("obgw: qtsp_cas %s: %v", a.QTSPCAs, err)
	}
	pool := x509.NewCertPool()
	for _, c := range cas {
		pool.AddCert(c)
	}
	a.validity.cas = cas
	v := &eidas.Verifier{Roots: pool}
	if a.CRL != "" {
		crl, err := os.ReadFile(a.CRL)
		if err != nil {
			return nil, fmt.Errorf("obgw: crl: %v", err)
		}
		checker, err := eidas.LoadCRLs(crl, cas)
		if err != nil {
			return nil, fmt.Errorf("obgw: crl %s: %v; its CRLs must be issued by the CAs of qtsp_cas %s: give the CRLs of those CAs, or an empty crl (OBGW_CRL=) for none", a.CRL, err, a.QTSPCAs)
		}
		v.Revocation = checker
		a.validity.crls = checker.NextUpdates()
	}
	if a.OCSP {
		// OCSP first; when the responder cannot answer, the configured CRL
		// file, else the CRLs the certificates name. Neither answering
		// fails closed (503); a revoked answer always wins.
		fallback := v.Revocation
		if fallback == nil {
			fallback = &eidas.CRLFetcher{}
		}
		v.Revocation = &eidas.OCSPChecker{Override: a.OCSPOverride, Fallback: fallback, MaxCacheTTL: time.Duration(a.CertCacheTTL)}
	}
	return v, nil
}

func (a *App) registrySource() (registry.Source, error) {
	var sources registry.Chain
	if a.RegistryEBA != "" {
		eba, err := a.provisionEBA()
		if err != nil {
			return nil, err
		}
		sources = append(sources, eba)
	}
	switch {
	case a.Registry == "" && a.RegistryEBA == "":
		return nil, fmt.Errorf("obgw: registry is required: a register JSON file or an http(s) URL, or registry_eba, the EBA's register")
	case a.Registry == "":
	case strings.HasPrefix(a.Registry, "https://") || strings.HasPrefix(a.Registry, "http://"):
		sources = append(sources, &registry.HTTP{BaseURL: strings.TrimSuffix(a.Registry, "/")})
	default:
		f, err := registry.LoadFile(a.Registry)
		if err != nil {
			return nil, err
		}
		a.registryFile = f
		sources = append(sources, f)
	}
	if len(sources) == 1 {
		return sources[0], nil
	}
	return sources, nil
}

// Validate checks the configuration.
func (a *App) Validate() error {
	if a.Environment != EnvSandbox && a.Environment != EnvProduction {
		return fmt.Errorf("obgw: environment must be %q or %q, not %q", EnvSandbox, EnvProduction, a.Environment)
	}
	if a.Diagnostics != nil && *a.Diagnostics && a.Environment != EnvSandbox {
		return fmt.Errorf("obgw: diagnostics on is for a sandbox only, and this is a %s deployment: diagnostics show anyone who sends a request "+
			"the signing string the gateway built and what it reads of the certificate; set diagnostics off (OBGW_DIAGNOSTICS=off), or environment sandbox", a.Environment)
	}
	return nil
}

// Cleanup releases this configuration's use of the shared replay and limit
// state (the last user closes the Redis client) and its seal's token.
func (a *App) Cleanup() error {
	a.closeKeys()
	for _, s := range a.trustSources {
		if err := s.cleanup(); err != nil {
			return err
		}
	}
	if a.stateKey == "" {
		return nil
	}
	_, err := sharedStates.Delete(a.stateKey)
	return err
}

// Start starts the background work the handlers of this configuration
// asked for (jobs.go).
func (a *App) Start() error {
	if err := a.refusePublishedLinks(a.production()); err != nil {
		return err
	}
	a.reportTrust(a.ctx)
	a.metrics.publishValidity(a.validity)
	a.jobs.start(a)
	for _, s := range a.trustSources {
		s.start(a)
	}
	a.listenCheck = time.AfterFunc(listenCheckDelay, a.warnSharedListeners)
	return nil
}

// Stop ends the background work.
func (a *App) Stop() error {
	a.jobs.stop()
	for _, s := range a.trustSources {
		s.stop()
	}
	if a.listenCheck != nil {
		a.listenCheck.Stop()
	}
	return nil
}

// listenCheckDelay is how long after starting the listeners are checked:
// Caddy's servers start beside this app, in no set order.
const listenCheckDelay = 2 * time.Second

// warnSharedListeners says, at error level, when another process listens
// on a port this one does (listen_check.go): the kernel then splits the
// connections between the two.
func (a *App) warnSharedListeners() {
	for _, p := range sharedListeners("/proc") {
		a.slog.Error("another process listens on a port this obgw serves: the kernel splits connections between them (SO_REUSEPORT); "+
			"stop one, or give each its own OBGW_LISTEN and OBGW_HEALTH_PORT", "shared", p.String())
	}
}

// Verifier returns the shared verification pipeline.
func (a *App) Verifier() *gateway.Verifier { return a.verifier }

// ContextVerifier returns a verifier for the context tokens this app issues,
// for an in-process backend.
func (a *App) ContextVerifier() (*tppcontext.Verifier, error) {
	if a.signingKey != nil {
		v, err := tppcontext.NewKeySetVerifier(a.jwks)
		if err != nil {
			return nil, err
		}
		if a.ContextAudience != "" {
			v = v.WithAudience(a.ContextAudience)
		}
		return v, nil
	}
	return tppcontext.NewVerifier(a.contextKey)
}

// Sandbox reports whether this is a sandbox deployment.
func (a *App) Sandbox() bool { return a.Environment == EnvSandbox }

// production reports whether this process is a production deployment: a
// gateway not in a sandbox, or a backend-only process whose obgw_backend
// is production (the app of a backend-only process has no environment of
// its own).
func (a *App) production() bool {
	if a.backendOnly {
		return a.backendProduction
	}
	return !a.Sandbox()
}

// DiagnosticsOn reports whether the signature diagnostics are on: as
// configured, else in a sandbox; never outside one (Validate refuses it).
func (a *App) DiagnosticsOn() bool {
	if a.Diagnostics != nil {
		return *a.Diagnostics && a.Sandbox()
	}
	return a.Sandbox()
}

// Interface guards.
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.Validator    = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)
