package caddymodule

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("obgw_fixes", parseFixes)
	// First of obgw's handlers (this file's init runs before the verify
	// directive's), so the fixes in effect reach the context token and the
	// x-accept-fix header is on rejections too. An encode handler comes
	// later in the standard order; to compress rewritten bodies, put encode
	// first in a route block.
	httpcaddyfile.RegisterDirectiveOrder("obgw_fixes", httpcaddyfile.Before, "basic_auth")
}

func parseFixes(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	f := new(Fixes)
	err := f.UnmarshalCaddyfile(h.Dispenser)
	return f, err
}

// UnmarshalCaddyfile sets up the handler:
//
//	obgw_fixes {
//	    fix <name> <introduced YYYY-MM-DD> <default-since YYYY-MM-DD>
//	}
//
// With no fix lines, the four fixes of the interface description apply.
func (f *Fixes) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "fix":
			var e FixEntry
			if !d.AllArgs(&e.Name, &e.Introduced, &e.DefaultSince) {
				return d.ArgErr()
			}
			f.Fixes = append(f.Fixes, e)
		default:
			return d.Errf("unknown obgw_fixes option %q", d.Val())
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Fixes)(nil)
