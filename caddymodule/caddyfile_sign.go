package caddymodule

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("obgw_sign", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		s := new(Sign)
		err := s.UnmarshalCaddyfile(h.Dispenser)
		return s, err
	})
	// Outside obgw's other handlers (obgw_fixes and obgw_verify come just
	// before basic_auth, after try_files): it signs what obgw_fixes
	// rewrote and obgw_verify refused.
	httpcaddyfile.RegisterDirectiveOrder("obgw_sign", httpcaddyfile.Before, "try_files")
}

// UnmarshalCaddyfile reads
//
//	obgw_sign {
//	    max_response <size>
//	}
func (s *Sign) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "max_response":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := parseSize(d.Val())
			if err != nil {
				return d.Errf("obgw_sign max_response: %v", err)
			}
			s.MaxResponse = n
			if d.NextArg() {
				return d.ArgErr()
			}
		default:
			return d.Errf("unknown obgw_sign option %q", d.Val())
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Sign)(nil)
