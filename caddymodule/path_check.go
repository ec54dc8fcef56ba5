package caddymodule

import (
	"errors"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/hygiene"
)

func init() {
	caddy.RegisterModule(PathCheck{})
	httpcaddyfile.RegisterHandlerDirective("obgw_path_check", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		p := new(PathCheck)
		err := p.UnmarshalCaddyfile(h.Dispenser)
		return p, err
	})
	// First of the site's handlers (after tracing, which should see the
	// refusal), before any rewrite or route reads the path.
	httpcaddyfile.RegisterDirectiveOrder("obgw_path_check", httpcaddyfile.Before, "map")
}

// PathCheck is the obgw_path_check handler: it refuses, with 400
// FORMAT_ERROR naming (request-target), a request whose path the routes
// and an upstream could read as two resources (hygiene.CheckRequestPath:
// dot segments, ";", backslashes, empty segments, encoded slashes). Caddy
// matches routes on the path cleaned, while the path as sent is what the
// backend or a bank's upstream receives, and what a servlet container
// normalises its own way: a policy must never pass one path and the
// upstream serve another. It runs before everything else of the site, so
// every route, verified or not, sees only paths that read one way. The
// refusal is unsigned: nothing authenticated the request.
type PathCheck struct{}

// CaddyModule returns the Caddy module information.
func (PathCheck) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_path_check", New: func() caddy.Module { return new(PathCheck) }}
}

// ServeHTTP refuses a path that reads two ways, or passes the request on.
func (PathCheck) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if err := hygiene.CheckRequestPath(r.URL.Path, r.URL.EscapedPath()); err != nil {
		text := err.Error()
		var he *hygiene.Error
		if errors.As(err, &he) {
			text = he.Text
		}
		e := bgerror.Format(hygiene.RequestTarget, text)
		e.Write(w)
		obgwMetrics.answered(requestFamily(r), e.Status, e.Code, byGateway)
		markCounted(w)
		return nil
	}
	return next.ServeHTTP(w, r)
}

// UnmarshalCaddyfile sets up the handler: obgw_path_check takes no
// arguments.
func (p *PathCheck) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.ArgErr()
	}
	return nil
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*PathCheck)(nil)
	_ caddyfile.Unmarshaler       = (*PathCheck)(nil)
)
