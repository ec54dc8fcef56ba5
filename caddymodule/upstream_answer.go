package caddymodule

import (
	"mime"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

func init() {
	caddy.RegisterModule(UpstreamAnswer{})
	httpcaddyfile.RegisterHandlerDirective("obgw_upstream_answer", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		u := new(UpstreamAnswer)
		err := u.UnmarshalCaddyfile(h.Dispenser)
		return u, err
	})
	// Inside obgw_count, which then counts the answer the TPP gets.
	httpcaddyfile.RegisterDirectiveOrder("obgw_upstream_answer", httpcaddyfile.Before, "reverse_proxy")
}

// upstreamIdentityHeaders name the software behind an answer: a bank's
// upstream's never reach a TPP.
var upstreamIdentityHeaders = []string{"Server", "X-Powered-By", "X-AspNet-Version", "X-AspNetMvc-Version", "Via", "X-Generator"}

// UpstreamAnswer is the obgw_upstream_answer handler: it makes every
// answer of a bank's own backend (OBGW_BACKEND=upstream) a Berlin Group
// answer, as obgw's own are:
//   - an error (4xx or 5xx) whose body is not JSON (an HTML page of the
//     bank's load balancer or application server) is replaced by the
//     Berlin Group error of its status: 404 RESOURCE_UNKNOWN, 405
//     SERVICE_INVALID, another 4xx FORMAT_ERROR, a 5xx 503
//     SERVICE_UNAVAILABLE (never a 500);
//   - the upstream's identity headers (Server, X-Powered-By and the like)
//     are dropped;
//   - an answer without Cache-Control gets no-store.
//
// A JSON error is the bank's own Berlin Group answer and passes as sent.
// The PSU's pages (/v1/sca/*, /v1/psu/*: requests obgw_verify did not
// authenticate) are the bank's HTML for a browser: only their identity
// headers are dropped.
type UpstreamAnswer struct{}

// CaddyModule returns the Caddy module information.
func (UpstreamAnswer) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_upstream_answer", New: func() caddy.Module { return new(UpstreamAnswer) }}
}

// ServeHTTP passes the request on and amends the answer as it is written.
func (UpstreamAnswer) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(&upstreamAnswerWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, api: authenticated(r)}, r)
}

// UnmarshalCaddyfile reads obgw_upstream_answer, which takes nothing.
func (u *UpstreamAnswer) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.ArgErr()
	}
	return nil
}

// upstreamAnswerWriter amends the upstream's answer at its header; once an
// error page is replaced, its body is dropped.
type upstreamAnswerWriter struct {
	*caddyhttp.ResponseWriterWrapper
	// api: an answer to the TPP interface, not a PSU's page.
	api             bool
	replaced, wrote bool
}

// WriteHeader amends the header, or answers the Berlin Group error instead.
func (w *upstreamAnswerWriter) WriteHeader(status int) {
	if w.wrote || (status >= 100 && status < 200) {
		if !w.wrote {
			w.ResponseWriterWrapper.WriteHeader(status)
		}
		return
	}
	w.wrote = true
	h := w.Header()
	for _, k := range upstreamIdentityHeaders {
		h.Del(k)
	}
	if !w.api {
		w.ResponseWriterWrapper.WriteHeader(status)
		return
	}
	if status >= 400 && !isJSON(h.Get("Content-Type")) {
		w.replaced = true
		// Nothing of the page stays but what the status means (Allow of
		// a 405, Retry-After); the gateway's own headers do (the echoed
		// X-Request-ID that obgw_sign signs, X-Accept-Fix).
		for k := range h {
			switch k {
			case "X-Request-Id", "X-Accept-Fix", "Allow", "Retry-After":
			default:
				delete(h, k)
			}
		}
		e := fromStatus(status, "")
		if status == http.StatusTooManyRequests {
			e = bgerror.New(bgerror.CodeAccessExceeded, "the bank's systems refuse more requests now; retry later")
		}
		e.Write(w.ResponseWriterWrapper.ResponseWriter)
		return
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	w.ResponseWriterWrapper.WriteHeader(status)
}

// Write sends p, or drops it when the answer was replaced.
func (w *upstreamAnswerWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriterWrapper.Write(p)
}

// isJSON reports whether a Content-Type is JSON (application/json or a
// +json type).
func isJSON(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return t == "application/json" || (len(t) > 5 && t[len(t)-5:] == "+json")
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*UpstreamAnswer)(nil)
	_ caddyfile.Unmarshaler       = (*UpstreamAnswer)(nil)
)
