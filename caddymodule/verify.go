package caddymodule

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway"
	"github.com/obgw/obgw/gateway/limits"
	"github.com/obgw/obgw/tppcontext"
)

func init() {
	caddy.RegisterModule(Verify{})
}

// DefaultMaxBody is the request body cap when max_body is not set.
const DefaultMaxBody = 1 << 20

// Verify is the obgw_verify handler: it lets a request reach the next
// handler only if it comes from a genuine, registered TPP with the route's
// role, signed as the interface description demands. Every other request is
// answered with a Berlin Group error. What each check decided is published
// as {http.vars.obgw.<check>} placeholders and access-log fields.
type Verify struct {
	// Role is the PSD2 role the route needs: PSP_AI, PSP_PI or PSP_IC.
	// Empty admits any PSD2 role the certificate and the register both grant.
	Role string `json:"role,omitempty"`
	// RequireHeaders lists headers the route demands besides Date,
	// X-Request-ID, Signature and TPP-Signature-Certificate, e.g.
	// TPP-Redirect-URI.
	RequireHeaders []string `json:"require_headers,omitempty"`
	// Digest is "required" (default: a request with a body must carry
	// Digest) or "optional" (verified only when present).
	Digest string `json:"digest,omitempty"`
	// RequestTarget is "optional" (default: verified when signed) or
	// "required" ((request-target) must be signed).
	RequestTarget string `json:"request_target,omitempty"`
	// QWAC is "optional" (default: checked when a TLS client certificate is
	// presented) or "required".
	QWAC string `json:"qwac,omitempty"`
	// MaxBody caps the request body in bytes (default 1 MiB).
	MaxBody int64 `json:"max_body,omitempty"`
	// BodyTimeout is how long the whole body may take to arrive once the
	// checks that need no body have passed (default 10s): a client that
	// trickles a body is answered 408 and its stream closed.
	BodyTimeout caddy.Duration `json:"body_timeout,omitempty"`
	// Modes sets a check's mode: "enforce" (default) or "report_only". Keys
	// are check names, in the order they run: hygiene, date, certificate,
	// signature, registry, role, qwac, replay, digest, limit.
	Modes map[string]string `json:"modes,omitempty"`
	// OnError sets what happens when a dependency fails: "deny" (default,
	// 503) or "allow". Keys: registry, replay, limit, ocsp (the revocation
	// status of the TPP's certificates cannot be established; a revoked
	// certificate is refused either way).
	OnError map[string]string `json:"on_error,omitempty"`
	// RedirectHTTPLocalhost accepts http://localhost TPP-Redirect-URIs in a
	// sandbox deployment; production ignores it.
	RedirectHTTPLocalhost bool `json:"redirect_http_localhost,omitempty"`
	// Limit, when set to "balances" or "transactions", applies the
	// PSU-not-present limit (4 calls per 24 h) to the route.
	Limit string `json:"limit,omitempty"`
	// LimitResource is the placeholder that names the limited resource;
	// default {http.request.uri.path.2}, the {id} of /v1/accounts/{id}/...
	LimitResource string `json:"limit_resource,omitempty"`
	// Family is the route family the route belongs to (ais, pis, baskets,
	// sandbox, ...): the family label of obgw_responses_total for its
	// answers, the gateway's and the backend's, and the request variable
	// {http.vars.obgw.family}. Default: other.
	Family string `json:"family,omitempty"`
	// LogSampleReads, when above 1, keeps one in LogSampleReads access-log
	// entries of the route's successful GET and HEAD requests: the others
	// are skipped (Caddy's log_skip). Refusals, errors and every other
	// method are always logged; so are the rejections metrics.
	LogSampleReads int `json:"log_sample_reads,omitempty"`

	policy   gateway.Policy
	verifier *gateway.Verifier
	bodies   *bodyBudget
	metrics  *metrics
	logger   *zap.Logger
	// reads counts the successful reads LogSampleReads samples (a
	// pointer: Verify is copied by value as a module).
	reads *atomic.Uint64
}

// CaddyModule returns the Caddy module information.
func (Verify) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.obgw_verify",
		New: func() caddy.Module { return new(Verify) },
	}
}

// Provision builds the route's policy and fetches the shared app.
func (v *Verify) Provision(ctx caddy.Context) error {
	v.logger = ctx.Logger()
	v.reads = new(atomic.Uint64)
	appIface, err := ctx.App("obgw")
	if err != nil {
		return fmt.Errorf("obgw_verify: loading obgw app: %v", err)
	}
	app := appIface.(*App)
	if app.backendOnly {
		return fmt.Errorf("obgw_verify: the obgw global options must set qtsp_cas and registry")
	}
	v.verifier = app.Verifier()
	v.bodies = app.bodies
	v.metrics = app.metrics
	p, err := v.buildPolicy()
	if err != nil {
		return err
	}
	// http://localhost redirects are a sandbox convenience: production
	// ignores the option, so one policy file serves both environments.
	p.AllowHTTPLocalhostRedirect = v.RedirectHTTPLocalhost && app.Sandbox()
	v.policy = p
	if v.MaxBody <= 0 {
		v.MaxBody = DefaultMaxBody
	}
	if v.MaxBody >= app.bodies.share {
		return fmt.Errorf("obgw_verify: max_body %s does not fit in a TPP's share of the body memory (the obgw app's body_share, %s): make body_share larger than max_body",
			humanize.IBytes(uint64(v.MaxBody)), humanize.IBytes(uint64(app.bodies.share)))
	}
	if v.BodyTimeout <= 0 {
		v.BodyTimeout = caddy.Duration(DefaultBodyTimeout)
	}
	if v.Family == "" {
		v.Family = familyOther
	} else if !validFamily(v.Family) {
		return fmt.Errorf("obgw_verify: family %q is not a name of lower-case letters, digits and _ (ais, pis, ...)", v.Family)
	}
	return nil
}

func (v *Verify) buildPolicy() (gateway.Policy, error) {
	p := gateway.Policy{
		RequiredRole:               v.Role,
		AllowHTTPLocalhostRedirect: v.RedirectHTTPLocalhost,
	}
	// Names keep the configured spelling, so errors name headers as the
	// interface description writes them.
	p.RequiredHeaders = append(p.RequiredHeaders, v.RequireHeaders...)
	switch v.Role {
	case "", "PSP_AI", "PSP_PI", "PSP_IC", "PSP_AS":
	default:
		return p, fmt.Errorf("obgw_verify: unknown role %q", v.Role)
	}
	switch v.Digest {
	case "", "required":
	case "optional":
		p.DigestOptional = true
	default:
		return p, fmt.Errorf("obgw_verify: digest must be required or optional, not %q", v.Digest)
	}
	switch v.RequestTarget {
	case "", "optional":
	case "required":
		p.RequireRequestTarget = true
	default:
		return p, fmt.Errorf("obgw_verify: request_target must be required or optional, not %q", v.RequestTarget)
	}
	switch v.QWAC {
	case "", "optional":
	case "required":
		p.RequireQWAC = true
	default:
		return p, fmt.Errorf("obgw_verify: qwac must be required or optional, not %q", v.QWAC)
	}
	switch v.Limit {
	case "", limits.KindBalances, limits.KindTransactions:
		p.LimitKind = v.Limit
	default:
		return p, fmt.Errorf("obgw_verify: limit must be %s or %s, not %q", limits.KindBalances, limits.KindTransactions, v.Limit)
	}
	if v.LimitResource == "" {
		v.LimitResource = "{http.request.uri.path.2}"
	}
	for name, m := range v.Modes {
		c, ok := gateway.ParseCheck(name)
		if !ok {
			return p, fmt.Errorf("obgw_verify: unknown check %q", name)
		}
		mode, ok := gateway.ParseMode(m)
		if !ok {
			return p, fmt.Errorf("obgw_verify: mode of %s must be enforce or report_only, not %q", name, m)
		}
		p.Modes[c] = mode
	}
	for name, oe := range v.OnError {
		o, ok := gateway.ParseOnError(oe)
		if !ok {
			return p, fmt.Errorf("obgw_verify: on_error %s must be deny or allow, not %q", name, oe)
		}
		switch name {
		case "registry":
			p.RegistryOnError = o
		case "replay":
			p.ReplayOnError = o
		case "limit":
			p.LimitOnError = o
		case "ocsp":
			p.OCSPOnError = o
		default:
			return p, fmt.Errorf("obgw_verify: on_error applies to registry, replay, limit or ocsp, not %q", name)
		}
	}
	return p, nil
}

// ServeHTTP verifies the request and passes it on, or answers the error.
func (v *Verify) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	req := gateway.Request{HTTP: r}
	// (request-target) signs the request line as the client sent it, not
	// as a rewrite before this handler (uri strip_prefix of a base path)
	// left it.
	if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && orig.RequestURI != r.RequestURI {
		req.RequestTarget = orig.RequestURI
	}
	// The body is read only once the request is authenticated (see
	// gateway.Request.ReadBody); its bytes count against the app's body
	// budget until the request is answered. A request without a body
	// allocates nothing for it.
	if hasBody(r) {
		if r.ContentLength > v.MaxBody {
			e := tooLarge(v.MaxBody)
			e.Write(w)
			v.metrics.answered(v.Family, e.Status, e.Code, byGateway)
			return nil
		}
		body := &bodyRead{budget: v.bodies}
		defer body.release()
		req.ReadBody = func(tpp string) ([]byte, *bgerror.Error) {
			return body.read(w, r, tpp, v.MaxBody, time.Duration(v.BodyTimeout))
		}
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		req.ClientCertificate = r.TLS.PeerCertificates[0]
	}
	if v.policy.LimitKind != "" {
		if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
			req.LimitResource = repl.ReplaceAll(v.LimitResource, "")
		}
	}
	start := time.Now()
	if names, ok := caddyhttp.GetVar(r.Context(), "obgw.fixes").(string); ok && names != "" {
		req.Fixes = strings.Split(names, ",")
	}
	req.Timed = tracing(r.Context())
	out := v.verifier.Verify(r.Context(), &req, &v.policy)
	v.metrics.observe(out, &v.policy, time.Since(start))
	publish(r, out, v.Family)
	emitSpans(r.Context(), out, &v.policy)
	if out.Err != nil {
		out.Err.Write(w)
		v.metrics.answered(v.Family, out.Err.Status, out.Err.Code, byGateway)
		return nil
	}
	for name := range r.Header {
		if strings.HasPrefix(name, tppcontext.HeaderPrefix) {
			delete(r.Header, name)
		}
	}
	r.Header.Set(tppcontext.Header, out.Token)
	// An in-process backend takes the context as it is, unsigned.
	r = r.WithContext(tppcontext.WithIssued(r.Context(), out.Token, &out.Context))
	sampled := v.LogSampleReads > 1 && (r.Method == http.MethodGet || r.Method == http.MethodHead)
	if !out.LimitReserved() && !sampled {
		return next.ServeHTTP(w, r)
	}
	sw := &statusWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	err := next.ServeHTTP(sw, r)
	served := err == nil && sw.status >= 200 && sw.status < 300
	if out.LimitReserved() && !served {
		// A call counted against the PSU-not-present limit counts only
		// if it is served: an error answer gives its place back (refused
		// calls do not count), on whichever instance, through the
		// limiter's store.
		if rerr := v.verifier.ReleaseLimit(context.WithoutCancel(r.Context()), out); rerr != nil {
			v.logger.Warn("a refused call stays counted against the PSU-not-present limit", zap.Error(rerr))
		}
	}
	if sampled && served && v.reads.Add(1)%uint64(v.LogSampleReads) != 0 {
		caddyhttp.SetVar(r.Context(), caddyhttp.LogSkipVar, true)
	}
	return err
}

// statusWriter records the status of the answer.
type statusWriter struct {
	*caddyhttp.ResponseWriterWrapper
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriterWrapper.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriterWrapper.Write(b)
}

// hasBody reports whether r may have a body. Go's servers set
// ContentLength 0 only when there is none (HTTP/1.1 without Content-Length
// or chunking, HTTP/2 with END_STREAM or a content-length of 0); -1 is a
// body of unknown length.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// Placeholder keys and values, made once: publishing a request's
// decisions then allocates nothing per check.
var (
	varKeys = func() (k [gateway.NumChecks]string) {
		for _, c := range gateway.Checks() {
			k[c] = "obgw." + c.String()
		}
		return k
	}()
	decisionValues = func() (v [gateway.NumDecisions]any) {
		for d := range v {
			v[d] = gateway.Decision(d).String()
		}
		return v
	}()
)

// outcomeLog writes a request's decisions as one "obgw" object in the
// access log, the audit record of the request: {"signature":"pass",...,
// "tpp":"PSDNO-...","error":"...","request_id":"...","trace_id":"..."}.
type outcomeLog struct {
	out       *gateway.Outcome
	requestID string
	traceID   string
}

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (l outcomeLog) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	for _, c := range gateway.Checks() {
		if d := l.out.Decision(c); d != gateway.DecisionNone {
			enc.AddString(c.String(), d.String())
		}
	}
	if l.out.TPP != "" {
		enc.AddString("tpp", l.out.TPP)
	}
	if l.out.Err != nil {
		enc.AddString("error", l.out.Err.Code)
	}
	if l.requestID != "" {
		enc.AddString("request_id", l.requestID)
	}
	if l.traceID != "" {
		enc.AddString("trace_id", l.traceID)
	}
	return nil
}

// publish exposes each check's decision as {http.vars.obgw.<check>} and in
// the access log (one "obgw" object), with the TPP and the error code
// (never secrets), and the route's family as {http.vars.obgw.family}.
func publish(r *http.Request, out *gateway.Outcome, family string) {
	ctx := r.Context()
	// The request's variables, looked up once: caddyhttp.SetVar walks the
	// context chain for every variable it sets.
	if vars, ok := ctx.Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
		vars[familyVar] = family
		for _, c := range gateway.Checks() {
			if d := out.Decision(c); d != gateway.DecisionNone {
				vars[varKeys[c]] = decisionValues[d]
			}
		}
		if out.TPP != "" {
			vars["obgw.tpp"] = out.TPP
			vars["obgw.roles"] = strings.Join(out.Roles, " ")
		}
		if out.Err != nil {
			vars["obgw.error"] = out.Err.Code
		}
		if out.Err == nil || out.Decision(gateway.CheckSignature) == gateway.DecisionPass {
			vars[authenticatedVar] = true
		}
	}
	if extra, ok := ctx.Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		l := outcomeLog{out: out}
		// The X-Request-ID only once hygiene found it a UUID: nothing
		// arbitrary from the client goes to the audit log.
		if out.Decision(gateway.CheckHygiene) == gateway.DecisionPass {
			l.requestID = r.Header.Get("X-Request-Id")
		}
		if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
			l.traceID = sc.TraceID().String()
		}
		extra.Add(zap.Object("obgw", l))
	}
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Verify)(nil)
	_ caddyhttp.MiddlewareHandler = (*Verify)(nil)
)
