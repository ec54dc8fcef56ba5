package gateway

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/limits"
	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/gateway/replay"
	"github.com/obgw/obgw/tppcontext"
)

// Config builds a Verifier.
type Config struct {
	// Certificates checks QSealCs and QWACs against the QTSP anchors.
	Certificates *eidas.Verifier
	// Registry answers whether a TPP is authorised.
	Registry *registry.Cache
	// Replay remembers (TPP, X-Request-ID) pairs.
	Replay replay.Store
	// ReplayFallback, when set, answers for Replay while it fails on routes
	// whose policy says on_error replay allow: protection continues per
	// instance instead of being dropped.
	ReplayFallback replay.Store
	// Limiter counts PSU-not-present calls; required when a policy sets
	// LimitKind.
	Limiter limits.Limiter
	// Issuer signs the context token for the backend.
	Issuer *tppcontext.Issuer
	// ClockSkew is the allowed Date deviation in both directions (default 60 s).
	ClockSkew time.Duration
	// CertCacheSize is the number of verified certificates kept (default 10000).
	CertCacheSize int
	// CertCacheTTL bounds how long a verification result is reused (default
	// 10 minutes; never past the certificate's notAfter).
	CertCacheTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Diagnostics makes the texts of signature, Digest and Date failures
	// name the precise cause and carry the signing string built
	// (diagnose.go). For sandboxes only: they tell anyone who sends a
	// request how the gateway reads it.
	Diagnostics bool
}

// Verifier runs the pipeline. It is safe for concurrent use and shared by
// every route of a configuration.
type Verifier struct {
	cfg      Config
	certs    *lru.Cache[[32]byte, *certEntry] // verified QSealCs by SHA-256 of the header value
	certDER  *lru.Cache[[32]byte, *certEntry] // verified QSealCs by SHA-256 of the DER
	rejected *lru.Cache[[32]byte, *certEntry] // refused certificates by SHA-256 of the header value
	qwacs    *lru.Cache[[32]byte, *certEntry] // QWACs by SHA-256 of the DER
	replayTT time.Duration
}

// NewVerifier returns a Verifier for cfg.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.Certificates == nil || cfg.Registry == nil || cfg.Replay == nil || cfg.Issuer == nil {
		return nil, errors.New("gateway: certificates, registry, replay store and issuer are all required")
	}
	if cfg.ClockSkew <= 0 {
		cfg.ClockSkew = 60 * time.Second
	}
	if cfg.CertCacheSize <= 0 {
		cfg.CertCacheSize = 10000
	}
	if cfg.CertCacheTTL <= 0 {
		cfg.CertCacheTTL = 10 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c, err := lru.New[[32]byte, *certEntry](cfg.CertCacheSize)
	if err != nil {
		return nil, err
	}
	q, err := lru.New[[32]byte, *certEntry](cfg.CertCacheSize)
	if err != nil {
		return nil, err
	}
	der, err := lru.New[[32]byte, *certEntry](cfg.CertCacheSize)
	if err != nil {
		return nil, err
	}
	// Refused certificates live apart, so garbage cannot evict verified
	// ones; few are needed to stop a client repeating one bad header.
	rej, err := lru.New[[32]byte, *certEntry](1024)
	if err != nil {
		return nil, err
	}
	// A replayed request is refused while its Date could still pass the
	// skew check, with margin: twice the window in each direction.
	return &Verifier{cfg: cfg, certs: c, certDER: der, rejected: rej, qwacs: q, replayTT: 4 * cfg.ClockSkew}, nil
}

// Request is what the pipeline looks at.
type Request struct {
	// HTTP is the request as received: headers as transmitted, RequestURI
	// from the original request line.
	HTTP *http.Request
	// RequestTarget, when set, is the request-target of the request line
	// as the client sent it, which (request-target) signs: a server that
	// rewrites the URI before the request is verified (a base path
	// stripped) passes the original here. Empty: HTTP.RequestURI.
	RequestTarget string
	// Body is the exact body bytes received (empty for none).
	Body []byte
	// ReadBody, when set, reads the body after every check that needs no
	// body has passed (certificate, signature, register, role, QWAC,
	// replay); Body is then what it returned. So a client that cannot
	// sign makes the gateway neither wait for a body nor hold one, and
	// one signed set of headers opens at most one body read. tpp is the
	// organizationIdentifier of the QSealC the signature verified with:
	// the TPP whose share of the body memory the read counts against.
	ReadBody func(tpp string) ([]byte, *bgerror.Error)
	// ClientCertificate is the mTLS client certificate (QWAC), if any.
	ClientCertificate *x509.Certificate
	// LimitResource is the resource id the PSU-not-present limit counts
	// against (the account or card account of the path).
	LimitResource string
	// Fixes are the x-accept-fix values in effect, for the context token.
	Fixes []string
	// Timed asks for each check's duration in Outcome.Timings (for trace
	// spans); off, the pipeline reads no clock per check.
	Timed bool
}

// target is the request-target (request-target) covers.
func (r *Request) target() string {
	if r.RequestTarget != "" {
		return r.RequestTarget
	}
	return r.HTTP.RequestURI
}

// ReplayLocal is the mark in the context token's unverified list of a
// request whose replay check went on in this instance's memory
// (Config.ReplayFallback) because the shared store failed.
const ReplayLocal = "replay:local"

// Outcome is the pipeline's verdict on one request.
type Outcome struct {
	// Decisions holds what each check decided.
	Decisions [numChecks]Decision
	// Err is the rejection; nil when the request may go on.
	Err *bgerror.Error
	// TPP is the TPP's organizationIdentifier, when known.
	TPP string
	// Roles are the roles granted, when known.
	Roles []string
	// Token is the X-Obgw-Context value to forward, when the request passes.
	Token string
	// Context is what the token carries.
	Context tppcontext.Context
	// Start, Timings and End are when verification began, how long each
	// check took and when the pipeline stopped, when the request asked for
	// them (Request.Timed). The check that stopped the pipeline has no
	// timing of its own: it ran until End.
	Start   time.Time
	Timings [numChecks]time.Duration
	End     time.Time
	// limitKey and reservation name the PSU-not-present call counted, for
	// ReleaseLimit.
	limitKey    string
	reservation limits.Reservation
}

// clock records per-check durations when asked to.
type clock struct {
	on   bool
	last time.Time
	o    *Outcome
}

// lap charges the time since the previous lap to check c.
func (k *clock) lap(c Check) {
	if !k.on {
		return
	}
	t := time.Now()
	k.o.Timings[c] += t.Sub(k.last)
	k.last = t
}

// Decision returns what check c decided.
func (o *Outcome) Decision(c Check) Decision { return o.Decisions[c] }

// fail records e, check c's failure, as the policy's mode for c says:
// report_only lists c as unverified and goes on, enforce makes e the
// rejection. It reports whether the pipeline must stop.
func (o *Outcome) fail(p *Policy, c Check, e *bgerror.Error) (stop bool) {
	if p.Modes[c] == ModeReportOnly {
		o.Decisions[c] = DecisionReport
		o.Context.Unverified = append(o.Context.Unverified, c.String())
		return false
	}
	o.Decisions[c] = DecisionFail
	o.Err = e
	return true
}

// record records what check c decided: d when it found nothing wrong (e
// nil), else its failure e as fail does. It reports whether the pipeline
// must stop.
func (o *Outcome) record(p *Policy, c Check, d Decision, e *bgerror.Error) (stop bool) {
	if e != nil {
		return o.fail(p, c, e)
	}
	o.Decisions[c] = d
	return false
}

// Verify runs the pipeline for r under policy p.
func (v *Verifier) Verify(ctx context.Context, r *Request, p *Policy) *Outcome {
	o := &Outcome{}
	v.verify(ctx, r, p, o)
	return o
}

func (v *Verifier) verify(ctx context.Context, r *Request, p *Policy, o *Outcome) {
	w := walk{r: r, p: p, now: v.cfg.Now(), o: o, k: clock{on: r.Timed, o: o}}
	if w.k.on {
		o.Start = time.Now()
		w.k.last = o.Start
		defer func() { o.End = time.Now() }()
	}
	v.run(ctx, &w)
	if o.Err != nil {
		return
	}
	tok, err := v.cfg.Issuer.Issue(o.Context, w.now)
	if err != nil {
		o.Err = bgerror.New(bgerror.CodeServiceUnavailable, "the gateway could not issue the backend context; retry later")
		return
	}
	o.Token = tok
}

// checkLimit counts the call against the PSU-not-present limit.
func (v *Verifier) checkLimit(ctx context.Context, r *Request, p *Policy, o *Outcome, now time.Time) *bgerror.Error {
	// The client's parts of the key are bounded before anything is counted.
	var ke *limits.KeyPartError
	if err := limits.CheckKeyParts(o.Context.PSUID, r.LimitResource); errors.As(err, &ke) {
		return bgerror.Format(ke.Part, ke.Text)
	}
	if v.cfg.Limiter == nil {
		o.Decisions[CheckLimit] = DecisionFail
		return bgerror.New(bgerror.CodeServiceUnavailable, "the call limit cannot be checked; retry later")
	}
	key := limits.Key(o.Context.TPP, o.Context.PSUID, r.LimitResource, p.LimitKind)
	d, err := v.cfg.Limiter.Allow(ctx, key, now)
	switch {
	case err != nil && p.LimitOnError == OnErrorAllow:
		o.Decisions[CheckLimit] = DecisionErrorAllowed
		o.Context.Unverified = append(o.Context.Unverified, "limit:error_allowed")
		return nil
	case err != nil:
		return bgerror.New(bgerror.CodeServiceUnavailable, "the call limit cannot be checked; retry later")
	case !d.Allowed:
		e := bgerror.New(bgerror.CodeAccessExceeded, "at most 4 "+p.LimitKind+" calls per 24 hours without the PSU present; retry after Retry-After seconds or with the PSU present")
		e.RetryAfter = int((d.RetryAfter + time.Second - 1) / time.Second)
		return e
	}
	o.Decisions[CheckLimit] = DecisionPass
	o.limitKey, o.reservation = key, d.Reservation
	return nil
}

// LimitReserved reports whether the request was counted against the
// PSU-not-present limit, so that its caller must ReleaseLimit it if the
// call is not served.
func (o *Outcome) LimitReserved() bool { return !o.reservation.IsZero() }

// ReleaseLimit takes back the PSU-not-present call o counted, when the
// backend did not serve it (contract section 5: refused calls do not
// count). It is the caller's to call once it knows the answer.
func (v *Verifier) ReleaseLimit(ctx context.Context, o *Outcome) error {
	if o.reservation.IsZero() || v.cfg.Limiter == nil {
		return nil
	}
	err := v.cfg.Limiter.Release(ctx, o.limitKey, o.reservation)
	o.reservation = limits.Reservation{}
	return err
}

// registryAndRole looks the TPP up and checks the route's role, lapping k
// between the two.
func (v *Verifier) registryAndRole(ctx context.Context, id *eidas.Identity, h http.Header, p *Policy, o *Outcome, k *clock) (roles []string, stop bool) {
	roles = id.Roles
	entry, err := v.cfg.Registry.Lookup(ctx, id.OrganizationIdentifier)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		if o.fail(p, CheckRegistry, bgerror.New(bgerror.CodeCertificateBlocked, "the TPP "+id.OrganizationIdentifier+" is not in the register of authorised TPPs")) {
			return nil, true
		}
	case err != nil:
		if p.RegistryOnError == OnErrorAllow {
			o.Decisions[CheckRegistry] = DecisionErrorAllowed
			o.Context.Unverified = append(o.Context.Unverified, "registry:error_allowed")
			break
		}
		o.Decisions[CheckRegistry] = DecisionFail
		o.Err = bgerror.New(bgerror.CodeServiceUnavailable, "the TPP register cannot be reached; retry later")
		return nil, true
	case !entry.Authorised():
		if o.fail(p, CheckRegistry, bgerror.New(bgerror.CodeCertificateBlocked, "the authorisation of TPP "+id.OrganizationIdentifier+" is withdrawn in the register")) {
			return nil, true
		}
	case !redirectRegistered(entry, h):
		if o.fail(p, CheckRegistry, bgerror.Format("TPP-Redirect-URI", "the host of TPP-Redirect-URI is not one that TPP "+id.OrganizationIdentifier+" registered with the bank")) {
			return nil, true
		}
	default:
		o.Decisions[CheckRegistry] = DecisionPass
		roles = entry.GrantedRoles(id.Roles)
		if entry.Name != "" {
			o.Context.TPPName = entry.Name
		}
	}
	k.lap(CheckRegistry)
	// A route that names no role still wants one: a TPP whose certificate
	// and register grant no PSD2 role in common may use nothing.
	if (p.RequiredRole == "" && len(roles) > 0) || slices.Contains(roles, p.RequiredRole) {
		o.Decisions[CheckRole] = DecisionPass
		return roles, false
	}
	text := "this service needs a PSD2 role that the certificate and the register both grant"
	if p.RequiredRole != "" {
		text = fmt.Sprintf("this service needs role %s, which the certificate and the register do not both grant", p.RequiredRole)
	}
	return roles, o.fail(p, CheckRole, bgerror.New(bgerror.CodeRoleInvalid, text))
}

// redirectRegistered reports whether the request's TPP-Redirect-URI, if
// any, goes to a host the TPP registered (always, when it registered
// none). Hygiene has checked that the URI parses.
func redirectRegistered(e *registry.Entry, h http.Header) bool {
	if len(e.RedirectHosts) == 0 {
		return true
	}
	raw := h.Get("Tpp-Redirect-Uri")
	if raw == "" {
		return true
	}
	u, err := url.Parse(raw)
	return err == nil && e.AllowsRedirectHost(u.Hostname())
}
