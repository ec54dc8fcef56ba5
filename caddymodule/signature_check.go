package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway"
)

func init() {
	caddy.RegisterModule(SignatureCheck{})
	httpcaddyfile.RegisterHandlerDirective("obgw_signature_check", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		s := new(SignatureCheck)
		err := s.UnmarshalCaddyfile(h.Dispenser)
		return s, err
	})
	// Before obgw_fixes and obgw_verify (both just before basic_auth): the
	// check answers instead of the pipeline, which would refuse the very
	// requests it explains.
	httpcaddyfile.RegisterDirectiveOrder("obgw_signature_check", httpcaddyfile.After, "try_files")
}

// SignatureCheck is the obgw_signature_check handler, the sandbox's
// signature check for TPP developers: it answers a signed request (any
// method's headers, any body) with 200 and the analysis of every check
// the gateway would make of a real call with the same headers and body
// (gateway.Verifier.Analyse): each check's verdict with the texts of
// diagnostics, the signing string built, the Digest computed. It executes
// nothing and records nothing: the X-Request-ID is not claimed, so the
// TPP's real call may carry it next.
//
// It serves only while the obgw app's diagnostics are on (a sandbox, by
// default); otherwise it passes the request on, to be verified and
// answered 404 as any unknown sandbox path. A QWAC the routes demand
// (qwac required) it demands too; a QWAC presented is checked.
//
// A client that signed (request-target) for the call it means to check
// names that call's request line in the query parameter request-target
// ("get /v1/accounts?withBalance=true"); the check's own is used
// otherwise.
type SignatureCheck struct {
	// QWAC is "optional" (default: checked when a TLS client certificate
	// is presented) or "required", as the routes' obgw_verify sets it.
	QWAC string `json:"qwac,omitempty"`
	// MaxBody caps the request body in bytes (default 1 MiB).
	MaxBody int64 `json:"max_body,omitempty"`
	// BodyTimeout is how long the whole body may take to arrive once it is
	// read (default 10s).
	BodyTimeout caddy.Duration `json:"body_timeout,omitempty"`

	on       bool
	policy   gateway.Policy
	verifier *gateway.Verifier
	app      *App
}

// CaddyModule returns the Caddy module information.
func (SignatureCheck) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_signature_check", New: func() caddy.Module { return new(SignatureCheck) }}
}

// Provision fetches the shared app and its verifier.
func (s *SignatureCheck) Provision(ctx caddy.Context) error {
	appIface, err := ctx.App("obgw")
	if err != nil {
		return errors.New("obgw_signature_check: loading obgw app: " + err.Error())
	}
	return s.provision(appIface.(*App))
}

// provision sets the handler up on app.
func (s *SignatureCheck) provision(app *App) error {
	s.app = app
	if s.app.backendOnly {
		return errors.New("obgw_signature_check: the obgw global options must set qtsp_cas and registry")
	}
	s.verifier = s.app.Verifier()
	s.on = s.app.DiagnosticsOn()
	switch s.QWAC {
	case "", "optional":
	case "required":
		s.policy.RequireQWAC = true
	default:
		return errors.New("obgw_signature_check: qwac must be required or optional, not " + strconv.Quote(s.QWAC))
	}
	s.policy.AllowHTTPLocalhostRedirect = s.app.Sandbox()
	if s.MaxBody <= 0 {
		s.MaxBody = DefaultMaxBody
	}
	if s.MaxBody >= app.bodies.share {
		return fmt.Errorf("obgw_signature_check: max_body %d bytes does not fit in a TPP's share of the body memory (the obgw app's body_share, %d bytes): make body_share larger than max_body",
			s.MaxBody, app.bodies.share)
	}
	if s.BodyTimeout <= 0 {
		s.BodyTimeout = caddy.Duration(DefaultBodyTimeout)
	}
	return nil
}

// ServeHTTP answers the analysis of the request, or passes it on when
// diagnostics are off.
func (s *SignatureCheck) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if !s.on {
		return next.ServeHTTP(w, r)
	}
	if vars, ok := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
		vars[familyVar] = familySandbox
	}
	answer := func(e *bgerror.Error) error {
		e.Write(w)
		s.app.metrics.answered(familySandbox, e.Status, e.Code, byGateway)
		return nil
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return answer(bgerror.New(bgerror.CodeServiceInvalid, r.Method+" is not allowed on the signature check; POST the request to check, with its headers and body"))
	}
	req := gateway.Request{HTTP: r}
	if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && orig.RequestURI != r.RequestURI {
		req.RequestTarget = orig.RequestURI
	}
	if v, ok := r.URL.Query()["request-target"]; ok {
		method, target, err := parseRequestTarget(v)
		if err != nil {
			return answer(bgerror.Format("request-target", err.Error()))
		}
		// The pipeline reads the method and the target of the call
		// meant; the rest of the request is this one.
		req.HTTP = r.WithContext(r.Context())
		req.HTTP.Method = method
		req.RequestTarget = target
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		req.ClientCertificate = r.TLS.PeerCertificates[0]
	} else if s.policy.RequireQWAC {
		return answer(bgerror.New(bgerror.CodeCertificateMissing, "this service needs a QWAC as TLS client certificate"))
	}
	if hasBody(r) {
		if r.ContentLength > s.MaxBody {
			return answer(tooLarge(s.MaxBody))
		}
		body := &bodyRead{budget: s.app.bodies}
		defer body.release()
		req.ReadBody = func(tpp string) ([]byte, *bgerror.Error) {
			return body.read(w, r, tpp, s.MaxBody, time.Duration(s.BodyTimeout))
		}
	}
	a, e := s.verifier.Analyse(r.Context(), &req, &s.policy)
	if e != nil {
		return answer(e)
	}
	out, err := json.Marshal(a)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	s.app.metrics.answered(familySandbox, http.StatusOK, "", byGateway)
	return nil
}

// familySandbox is the route family of the check's answers, the one
// policies/sandbox.caddy gives the mock-data routes it sits among.
const familySandbox = "sandbox"

// maxRequestTarget bounds the request-target parameter: a request line's
// target is bounded by the server's header size; this one by the longest
// URL a TPP client sends.
const maxRequestTarget = 2048

// parseRequestTarget reads the request-target query parameter: once,
// "<method> <path and query as sent>", the method a token of letters (any
// case; the signing string has it in lower case), the target starting
// with '/' and made of visible ASCII, as a request line's is. It returns
// the method in upper case and the target.
func parseRequestTarget(values []string) (method, target string, err error) {
	if len(values) != 1 {
		return "", "", errors.New("give request-target once")
	}
	v := values[0]
	if len(v) > maxRequestTarget {
		return "", "", errors.New("request-target is longer than " + strconv.Itoa(maxRequestTarget) + " bytes")
	}
	method, target, ok := strings.Cut(v, " ")
	if !ok || method == "" || len(method) > 16 || target == "" || target[0] != '/' {
		return "", "", errors.New(`request-target must be "<method> <path and query>" as the call's (request-target) line has it, e.g. "get /v1/accounts"`)
	}
	for i := 0; i < len(method); i++ {
		if c := method[i] | 0x20; c < 'a' || c > 'z' {
			return "", "", errors.New("the method of request-target must be letters, e.g. get or post")
		}
	}
	for i := 0; i < len(target); i++ {
		if target[i] <= ' ' || target[i] > '~' {
			return "", "", errors.New("the path of request-target must be visible ASCII without spaces, percent-encoded as sent")
		}
	}
	return strings.ToUpper(method), target, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	obgw_signature_check [<matcher>] {
//	    qwac         required|optional
//	    max_body     <size>
//	    body_timeout <duration>
//	}
func (s *SignatureCheck) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		name := d.Val()
		var arg string
		if !d.AllArgs(&arg) {
			return d.ArgErr()
		}
		switch name {
		case "qwac":
			s.QWAC = arg
		case "max_body":
			n, err := parseSize(arg)
			if err != nil {
				return d.Errf("obgw_signature_check max_body: %v", err)
			}
			s.MaxBody = n
		case "body_timeout":
			t, err := parseDuration(arg)
			if err != nil {
				return d.Errf("obgw_signature_check body_timeout: %v", err)
			}
			s.BodyTimeout = t
		default:
			return d.Errf("unknown obgw_signature_check option %q", name)
		}
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*SignatureCheck)(nil)
	_ caddyhttp.MiddlewareHandler = (*SignatureCheck)(nil)
	_ caddyfile.Unmarshaler       = (*SignatureCheck)(nil)
)
