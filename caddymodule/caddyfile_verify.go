package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("obgw_verify", parseVerify)
	httpcaddyfile.RegisterDirectiveOrder("obgw_verify", httpcaddyfile.Before, "basic_auth")
}

func parseVerify(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	v := new(Verify)
	err := v.UnmarshalCaddyfile(h.Dispenser)
	return v, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	obgw_verify {
//	    role                     PSP_AI|PSP_PI|PSP_IC
//	    require_headers          <header...>
//	    digest                   required|optional
//	    request_target           required|optional
//	    qwac                     required|optional
//	    max_body                 <size>
//	    body_timeout             <duration>
//	    mode                     <check> enforce|report_only
//	    on_error                 registry|replay|limit|ocsp deny|allow
//	    limit                    balances|transactions [<resource placeholder>]
//	    redirect_http_localhost
//	    log_sample_reads         <n>
//	    family                   <name>
//	}
func (v *Verify) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "role":
			if !d.AllArgs(&v.Role) {
				return d.ArgErr()
			}
		case "require_headers":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			v.RequireHeaders = append(v.RequireHeaders, args...)
		case "digest":
			if !d.AllArgs(&v.Digest) {
				return d.ArgErr()
			}
		case "request_target":
			if !d.AllArgs(&v.RequestTarget) {
				return d.ArgErr()
			}
		case "qwac":
			if !d.AllArgs(&v.QWAC) {
				return d.ArgErr()
			}
		case "max_body":
			var s string
			if !d.AllArgs(&s) {
				return d.ArgErr()
			}
			n, err := parseSize(s)
			if err != nil {
				return d.Errf("obgw_verify max_body: %v", err)
			}
			v.MaxBody = n
		case "body_timeout":
			var s string
			if !d.AllArgs(&s) {
				return d.ArgErr()
			}
			dur, err := parseDuration(s)
			if err != nil {
				return d.Errf("obgw_verify body_timeout: %v", err)
			}
			v.BodyTimeout = dur
		case "mode":
			var check, mode string
			if !d.AllArgs(&check, &mode) {
				return d.ArgErr()
			}
			if v.Modes == nil {
				v.Modes = map[string]string{}
			}
			v.Modes[check] = mode
		case "on_error":
			var dep, what string
			if !d.AllArgs(&dep, &what) {
				return d.ArgErr()
			}
			if v.OnError == nil {
				v.OnError = map[string]string{}
			}
			v.OnError[dep] = what
		case "limit":
			args := d.RemainingArgs()
			if len(args) < 1 || len(args) > 2 {
				return d.ArgErr()
			}
			v.Limit = args[0]
			if len(args) == 2 {
				v.LimitResource = args[1]
			}
		case "log_sample_reads":
			var s string
			if !d.AllArgs(&s) {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return d.Errf("obgw_verify log_sample_reads: %q is not a whole number of 1 or more", s)
			}
			v.LogSampleReads = n
		case "family":
			if !d.AllArgs(&v.Family) {
				return d.ArgErr()
			}
		case "redirect_http_localhost":
			if d.NextArg() {
				return d.ArgErr()
			}
			v.RedirectHTTPLocalhost = true
		default:
			return d.Errf("unknown obgw_verify option %q", d.Val())
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Verify)(nil)
