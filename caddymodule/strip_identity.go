package caddymodule

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/tppcontext"
)

func init() {
	caddy.RegisterModule(StripIdentity{})
	httpcaddyfile.RegisterHandlerDirective("obgw_strip_identity", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		s := new(StripIdentity)
		err := s.UnmarshalCaddyfile(h.Dispenser)
		return s, err
	})
	httpcaddyfile.RegisterDirectiveOrder("obgw_strip_identity", httpcaddyfile.Before, "map")
}

// StripIdentity is the obgw_strip_identity handler: it removes from every
// request of the site what could pose as, or unset, the gateway's word on
// who is calling, so that only obgw_verify's X-Obgw-Context reaches a
// backend:
//   - the client's own X-Obgw-* headers;
//   - X-Obgw-* names in Connection: a proxy drops the headers Connection
//     names as hop-by-hop, the gateway's token with them;
//   - every request trailer (and the Trailer header announcing them): a
//     proxy forwards trailers after the body, past every check of the
//     headers. No route of the interface takes trailers.
type StripIdentity struct{}

// CaddyModule returns the Caddy module information.
func (StripIdentity) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_strip_identity", New: func() caddy.Module { return new(StripIdentity) }}
}

// ServeHTTP strips the request and passes it on.
func (StripIdentity) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	for name := range r.Header {
		if strings.HasPrefix(name, tppcontext.HeaderPrefix) {
			delete(r.Header, name)
		}
	}
	if conn := r.Header.Values("Connection"); len(conn) > 0 {
		var kept []string
		for _, v := range conn {
			for _, tok := range strings.Split(v, ",") {
				tok = strings.TrimSpace(tok)
				if tok != "" && !strings.HasPrefix(http.CanonicalHeaderKey(tok), tppcontext.HeaderPrefix) {
					kept = append(kept, tok)
				}
			}
		}
		r.Header.Del("Connection")
		if len(kept) > 0 {
			r.Header.Set("Connection", strings.Join(kept, ", "))
		}
	}
	r.Header.Del("Trailer")
	r.Trailer = nil
	return next.ServeHTTP(w, r)
}

// UnmarshalCaddyfile sets up the handler: obgw_strip_identity takes no
// arguments.
func (s *StripIdentity) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.ArgErr()
	}
	return nil
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*StripIdentity)(nil)
	_ caddyfile.Unmarshaler       = (*StripIdentity)(nil)
)
