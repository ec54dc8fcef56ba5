package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
)

func init() {
	caddy.RegisterModule(ContextJWKS{})
	httpcaddyfile.RegisterHandlerDirective("obgw_context_jwks", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		j := new(ContextJWKS)
		err := j.UnmarshalCaddyfile(h.Dispenser)
		return j, err
	})
	httpcaddyfile.RegisterDirectiveOrder("obgw_context_jwks", httpcaddyfile.Before, "respond")
}

// ContextJWKS is the obgw_context_jwks handler: the JWKS (RFC 7517) of the
// public keys upstreams verify X-Obgw-Context tokens with (the obgw app's
// context_signing_key_file and context_published_key_files), for a bank's
// own backend. Serve it where the bank's backends reach it and TPPs do
// not: the shipped Caddyfile has it on the internal health listener. With
// HS256 tokens (no signing key file) it answers 404: there is no public
// key.
type ContextJWKS struct {
	// MaxAge is how long a verifier may keep the set (Cache-Control
	// max-age): a key a rotation retired stops being accepted within it.
	// Default 5 minutes.
	MaxAge caddy.Duration `json:"max_age,omitempty"`

	body   []byte
	header string
}

// DefaultJWKSMaxAge is the JWKS's max-age when max_age is not set.
const DefaultJWKSMaxAge = 5 * time.Minute

// CaddyModule returns the Caddy module information.
func (ContextJWKS) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_context_jwks", New: func() caddy.Module { return new(ContextJWKS) }}
}

// Provision encodes the app's JWKS once: it changes only with the
// configuration.
func (j *ContextJWKS) Provision(ctx caddy.Context) error {
	a, err := ctx.App("obgw")
	if err != nil {
		return fmt.Errorf("obgw_context_jwks: loading the obgw app: %v", err)
	}
	if j.MaxAge <= 0 {
		j.MaxAge = caddy.Duration(DefaultJWKSMaxAge)
	}
	j.header = "max-age=" + strconv.Itoa(int(time.Duration(j.MaxAge).Seconds()))
	set := a.(*App).JWKS()
	if len(set.Keys) == 0 {
		return nil
	}
	j.body, err = json.Marshal(set)
	return err
}

// ServeHTTP answers the JWKS.
func (j *ContextJWKS) ServeHTTP(w http.ResponseWriter, _ *http.Request, _ caddyhttp.Handler) error {
	if j.body == nil {
		bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown,
			"the context tokens are HS256: there is no public key (set context_signing_key_file)").Write(w)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "application/jwk-set+json")
	// Upstreams refetch on an unknown kid; a rotation publishes the next
	// key before it signs, so caching loses nothing, and retires a key by
	// leaving it out: verifiers drop it within max-age.
	h.Set("Cache-Control", j.header)
	_, err := w.Write(j.body)
	return err
}

// UnmarshalCaddyfile reads
//
//	obgw_context_jwks [{
//	    max_age <duration>
//	}]
func (j *ContextJWKS) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if d.Val() != "max_age" || !d.NextArg() {
			return d.Errf("obgw_context_jwks: unknown option %q (max_age <duration>)", d.Val())
		}
		if d.Val() == "" {
			continue
		}
		v, err := caddy.ParseDuration(d.Val())
		if err != nil || v < time.Second {
			return d.Errf("obgw_context_jwks max_age: %q is not a duration of a second or more", d.Val())
		}
		j.MaxAge = caddy.Duration(v)
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*ContextJWKS)(nil)
	_ caddyhttp.MiddlewareHandler = (*ContextJWKS)(nil)
	_ caddyfile.Unmarshaler       = (*ContextJWKS)(nil)
)
