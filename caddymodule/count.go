package caddymodule

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Count{})
	httpcaddyfile.RegisterHandlerDirective("obgw_count", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		c := new(Count)
		err := c.UnmarshalCaddyfile(h.Dispenser)
		return c, err
	})
	// Right around the reverse_proxy it counts, inside obgw_verify (whose
	// refusals are counted by it).
	httpcaddyfile.RegisterDirectiveOrder("obgw_count", httpcaddyfile.Before, "reverse_proxy")
}

// Count is the obgw_count handler: it counts in obgw_responses_total the
// answers of the handler after it, a reverse_proxy to obgw's own backend
// service (by backend) or to a bank's (by upstream), as obgw_backend
// counts its own in a single process. What it does not count is counted
// by the handler that answered: an error returned (an unreachable
// backend) by handle_errors' obgw_error, and an obgw_error inside
// reverse_proxy's handle_response (an upstream's 502) by that obgw_error
// (by gateway).
type Count struct {
	// By is the producer label of the answers: backend or upstream.
	By string `json:"by,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Count) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_count", New: func() caddy.Module { return new(Count) }}
}

// Validate checks the producer: the label's values stay bounded.
func (c *Count) Validate() error {
	if c.By != byBackend && c.By != byUpstream {
		return fmt.Errorf("obgw_count: by must be %s or %s, not %q", byBackend, byUpstream, c.By)
	}
	return nil
}

// ServeHTTP counts the answer next writes.
func (c *Count) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	rec := &answerRecorder{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, readCode: true}
	if err := next.ServeHTTP(rec, r); err != nil || rec.counted {
		return err
	}
	status, code := rec.result()
	obgwMetrics.answered(requestFamily(r), status, code, c.By)
	return nil
}

// UnmarshalCaddyfile reads
//
//	obgw_count backend|upstream
func (c *Count) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if !d.NextArg() {
		return d.Errf("obgw_count: name who answers: backend or upstream")
	}
	c.By = d.Val()
	if d.NextArg() || d.NextBlock(0) {
		return d.ArgErr()
	}
	if err := c.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Validator             = (*Count)(nil)
	_ caddyhttp.MiddlewareHandler = (*Count)(nil)
	_ caddyfile.Unmarshaler       = (*Count)(nil)
)
