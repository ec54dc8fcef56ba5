package caddymodule

import (
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

func init() {
	caddy.RegisterModule(Error{})
	httpcaddyfile.RegisterHandlerDirective("obgw_error", parseError)
	httpcaddyfile.RegisterDirectiveOrder("obgw_error", httpcaddyfile.Before, "respond")
}

// Error is the obgw_error handler: a terminal handler that answers with a
// Berlin Group error body. With a code it answers that error (for unknown
// paths, methods, or routes not offered in an environment); without one,
// inside handle_errors, it turns the error Caddy is handling (an unreachable
// backend, a 404 from a matcher) into the matching Berlin Group error, so a
// TPP never sees a bare 5xx.
type Error struct {
	// Status is the HTTP status; default: the contract's status of Code.
	Status int `json:"status,omitempty"`
	// Code is the Berlin Group code. Empty: derived from the error being
	// handled ({http.error.status_code}).
	Code string `json:"code,omitempty"`
	// Text is the message for the TPP. Placeholders are expanded.
	Text string `json:"text,omitempty"`
	// SCARedirect, when set, is offered as _links.scaRedirect (for
	// CONSENT_INVALID). Placeholders are expanded.
	SCARedirect string `json:"sca_redirect,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Error) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.obgw_error",
		New: func() caddy.Module { return new(Error) },
	}
}

// ServeHTTP writes the error.
func (h Error) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	text := h.Text
	if repl != nil {
		text = repl.ReplaceAll(text, "")
	}
	if h.Code != "" {
		e := bgerror.New(h.Code, text)
		if h.Status != 0 {
			e.Status = h.Status
		}
		if h.SCARedirect != "" {
			e.SCARedirect = h.SCARedirect
			if repl != nil {
				e.SCARedirect = repl.ReplaceAll(h.SCARedirect, "")
			}
		}
		e.Write(w)
		obgwMetrics.answered(requestFamily(r), e.Status, e.Code, byGateway)
		markCounted(w)
		return nil
	}
	status := 0
	if repl != nil {
		if s, ok := repl.GetString("http.error.status_code"); ok {
			status, _ = strconv.Atoi(s)
		}
	}
	e := fromStatus(status, text)
	e.Write(w)
	obgwMetrics.answered(requestFamily(r), e.Status, e.Code, byGateway)
	markCounted(w)
	return nil
}

// fromStatus maps the status of an error Caddy is handling to the Berlin
// Group error a TPP sees.
func fromStatus(status int, text string) *bgerror.Error {
	switch {
	case status == http.StatusNotFound:
		return bgerror.NewStatus(status, bgerror.CodeResourceUnknown, orDefault(text, "no such resource"))
	case status == http.StatusMethodNotAllowed:
		return bgerror.New(bgerror.CodeServiceInvalid, orDefault(text, "this method is not allowed on the resource"))
	case status == http.StatusMisdirectedRequest:
		return bgerror.NewStatus(status, bgerror.CodeFormatError, orDefault(text,
			"the Host header does not match the TLS server name (SNI): connect with the host name the server certificate names, and send it as Host"))
	case status == http.StatusRequestEntityTooLarge:
		return bgerror.NewStatus(status, bgerror.CodeFormatError, orDefault(text, "the request body is too large"))
	case status >= 400 && status < 500:
		return bgerror.NewStatus(status, bgerror.CodeFormatError, orDefault(text, "the request could not be processed"))
	default:
		// 5xx and anything unexpected: the service is unavailable, never a 500.
		return bgerror.New(bgerror.CodeServiceUnavailable, orDefault(text, "the service is temporarily unavailable; retry later"))
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func parseError(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	e := new(Error)
	err := e.UnmarshalCaddyfile(h.Dispenser)
	return e, err
}

// UnmarshalCaddyfile sets up the handler:
//
//	obgw_error [<code> [<status>]] [{
//	    text         <text>
//	    sca_redirect <href>
//	}]
func (h *Error) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	args := d.RemainingArgs()
	switch len(args) {
	case 0:
	case 1:
		h.Code = args[0]
	case 2:
		h.Code = args[0]
		s, err := strconv.Atoi(args[1])
		if err != nil || s < 400 || s > 599 {
			return d.Errf("status must be 400-599, not %q", args[1])
		}
		h.Status = s
	default:
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "text":
			if !d.AllArgs(&h.Text) {
				return d.ArgErr()
			}
		case "sca_redirect":
			if !d.AllArgs(&h.SCARedirect) {
				return d.ArgErr()
			}
		default:
			return d.Errf("unknown obgw_error option %q", d.Val())
		}
	}
	return nil
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*Error)(nil)
	_ caddyfile.Unmarshaler       = (*Error)(nil)
)
