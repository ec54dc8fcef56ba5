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
	caddy.RegisterModule(ContextSigning{})
	httpcaddyfile.RegisterHandlerDirective("obgw_context_signing", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		s := new(ContextSigning)
		err := s.UnmarshalCaddyfile(h.Dispenser)
		return s, err
	})
	httpcaddyfile.RegisterDirectiveOrder("obgw_context_signing", httpcaddyfile.Before, "reverse_proxy")
}

// ContextSigning is the obgw_context_signing handler: a requirement on the
// context tokens of the routes it is in, checked when the configuration
// loads (caddy validate included), so that a deployment that cannot work
// does not start. `obgw_context_signing asymmetric`, in
// policies/backend-upstream.caddy, refuses a configuration whose obgw app
// has no context_signing_key_file: a bank's own backend verifies tokens
// with the gateway's public keys (the JWKS), and without a signing key the
// gateway would sign with an HS256 secret the upstream does not hold, and
// every request would be refused there. At request time it only passes
// the request on.
type ContextSigning struct {
	// Require is how the tokens must be signed: asymmetric (EdDSA or
	// ES256 with the obgw app's context_signing_key_file), the only value.
	Require string `json:"require,omitempty"`
}

// contextSigningAsymmetric is Require's one value.
const contextSigningAsymmetric = "asymmetric"

// CaddyModule returns the Caddy module information.
func (ContextSigning) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_context_signing", New: func() caddy.Module { return new(ContextSigning) }}
}

// Provision checks that the obgw app signs as required.
func (s *ContextSigning) Provision(ctx caddy.Context) error {
	if err := s.Validate(); err != nil {
		return err
	}
	a, err := ctx.App("obgw")
	if err != nil {
		return fmt.Errorf("obgw_context_signing: loading the obgw app: %v", err)
	}
	if a.(*App).signingKey == nil {
		return fmt.Errorf("obgw_context_signing %s: the upstream verifies the context tokens with the gateway's public keys, "+
			"and the gateway has none: set the obgw app's context_signing_key_file (in the shipped Caddyfile "+
			"OBGW_CONTEXT_SIGNING_KEY_FILE) to a PEM Ed25519 or P-256 private key (docs/context-token.md)", s.Require)
	}
	return nil
}

// Validate checks the requirement's name.
func (s *ContextSigning) Validate() error {
	if s.Require != contextSigningAsymmetric {
		return fmt.Errorf("obgw_context_signing: want %s, not %q", contextSigningAsymmetric, s.Require)
	}
	return nil
}

// ServeHTTP passes the request on: the requirement was checked at load.
func (s *ContextSigning) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}

// UnmarshalCaddyfile reads
//
//	obgw_context_signing asymmetric
func (s *ContextSigning) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if !d.AllArgs(&s.Require) {
		return d.Errf("obgw_context_signing: want one argument, %s", contextSigningAsymmetric)
	}
	if d.NextBlock(0) {
		return d.Err("obgw_context_signing takes no block")
	}
	if err := s.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*ContextSigning)(nil)
	_ caddy.Validator             = (*ContextSigning)(nil)
	_ caddyhttp.MiddlewareHandler = (*ContextSigning)(nil)
	_ caddyfile.Unmarshaler       = (*ContextSigning)(nil)
)
