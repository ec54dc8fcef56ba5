package caddymodule

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("obgw_backend", parseBackend)
	httpcaddyfile.RegisterDirectiveOrder("obgw_backend", httpcaddyfile.Before, "respond")
}

func parseBackend(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	b := new(Backend)
	err := b.UnmarshalCaddyfile(h.Dispenser)
	return b, err
}

// UnmarshalCaddyfile sets up the handler:
//
//	obgw_backend {
//	    database    <postgres:// URL | sqlite file>
//	    data_dir    <dir>
//	    context_key      <base64 secret, or {env.NAME}>
//	    context_key_file <file holding the key>
//	    environment      production|sandbox
//	    batch_times <HH:MM>...
//	    sca_oidc { ... }  (see unmarshalSCAOIDC)
//	}
//
// Empty values (unset environment placeholders) keep the defaults.
func (b *Backend) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		name := d.Val()
		if name == "sca_oidc" {
			o, err := unmarshalSCAOIDC(d)
			if err != nil {
				return err
			}
			b.SCAOIDC = o
			continue
		}
		args := d.RemainingArgs()
		if name == "batch_times" {
			b.BatchTimes = args
			continue
		}
		if len(args) > 1 {
			return d.ArgErr()
		}
		var v string
		if len(args) == 1 {
			v = args[0]
		}
		switch name {
		case "database":
			b.Database = v
		case "data_dir":
			b.DataDir = v
		case "context_key":
			b.ContextKey = v
		case "context_key_file":
			b.ContextKeyFile = v
		case "environment":
			b.Environment = v
		default:
			return d.Errf("unknown obgw_backend option %q", name)
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Backend)(nil)
