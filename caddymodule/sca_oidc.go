package caddymodule

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	"github.com/obgw/obgw/backend/idp"
	"github.com/obgw/obgw/testpki/published"
)

// SCAOIDC points the SCA pages at the bank's OpenID Connect identity
// provider (BankID, usually through a broker): the PSU logs in there, and
// the customer is the one whose customer number the ID token's
// CustomerClaim holds. Runtime placeholders ({env.NAME}) in the issuer,
// client id, secret and redirect URL are expanded at provision time.
type SCAOIDC struct {
	// Issuer is the provider's issuer URL (discovery at
	// Issuer/.well-known/openid-configuration). Empty: no provider.
	Issuer string `json:"issuer,omitempty"`
	// ClientID is obgw's client id at the provider.
	ClientID string `json:"client_id,omitempty"`
	// ClientSecret authenticates obgw at the token endpoint
	// (client_secret_basic or _post, as the provider says); or
	// ClientSecretFile holds it.
	ClientSecret     string `json:"client_secret,omitempty"`
	ClientSecretFile string `json:"client_secret_file,omitempty"`
	// PrivateKeyFile is a PEM private key for private_key_jwt instead of
	// a secret; PrivateKeyID its kid at the provider, if it wants one.
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	PrivateKeyID   string `json:"private_key_id,omitempty"`
	// CustomerClaim is the ID token's claim holding the customer number
	// (the national identity number); default "sub".
	CustomerClaim string `json:"customer_claim,omitempty"`
	// Scopes are asked for besides openid.
	Scopes []string `json:"scopes,omitempty"`
	// ACRValues are asked for and required for account access;
	// PaymentACRValues for authorising or cancelling payments (default
	// ACRValues).
	ACRValues        []string `json:"acr_values,omitempty"`
	PaymentACRValues []string `json:"payment_acr_values,omitempty"`
	// AppParams are added to the authorization request when the TPP sent
	// TPP-Redirect-Preferred: false (authentication in the bank's app).
	AppParams map[string][]string `json:"app_params,omitempty"`
	// RedirectURL is the redirect URI registered at the provider: the
	// public address of /v1/sca/callback (under the base path). Empty:
	// https:// the request's host and base path.
	RedirectURL string `json:"redirect_url,omitempty"`
	// ClockSkew is how far the provider's clock may be off; default 1m.
	ClockSkew caddy.Duration `json:"clock_skew,omitempty"`
}

// relyingParty returns the relying party o configures, or nil when o
// names no issuer.
func (o *SCAOIDC) relyingParty(logger *zap.Logger) (*idp.RelyingParty, string, error) {
	if o == nil {
		return nil, "", nil
	}
	repl := caddy.NewReplacer()
	issuer := repl.ReplaceKnown(o.Issuer, "")
	if issuer == "" {
		return nil, "", nil
	}
	warnLiteralSecret(logger, "client_secret", o.ClientSecret)
	secret, err := secretValue("client_secret", o.ClientSecret, o.ClientSecretFile)
	if err != nil {
		return nil, "", err
	}
	cfg := idp.Config{
		Issuer: issuer, ClientID: repl.ReplaceKnown(o.ClientID, ""), ClientSecret: secret,
		CustomerClaim: o.CustomerClaim, Scopes: o.Scopes, ACRValues: o.ACRValues, PaymentACRValues: o.PaymentACRValues,
		AppParams: url.Values(o.AppParams), ClockSkew: time.Duration(o.ClockSkew),
	}
	if o.PrivateKeyFile != "" {
		if secret != "" {
			return nil, "", fmt.Errorf("client_secret and private_key_file are both set; use one")
		}
		raw, err := os.ReadFile(o.PrivateKeyFile)
		if err != nil {
			return nil, "", fmt.Errorf("private_key_file: %v", err)
		}
		if cfg.PrivateKey, err = idp.ParseClientKey(raw, o.PrivateKeyID); err != nil {
			return nil, "", fmt.Errorf("private_key_file %s: %v", o.PrivateKeyFile, err)
		}
	}
	redirect := repl.ReplaceKnown(o.RedirectURL, "")
	if redirect != "" {
		u, err := url.Parse(redirect)
		if err != nil || u.Scheme != "https" || u.Host == "" || !strings.HasSuffix(u.Path, "/v1/sca/callback") {
			return nil, "", fmt.Errorf("redirect_url %q must be an https URL ending in /v1/sca/callback", redirect)
		}
	}
	rp, err := idp.New(cfg)
	return rp, redirect, err
}

// refusePublished refuses, for production, the credentials this
// repository publishes for its test identity provider: its client secret
// (`obgw test-idp`'s, which `make run-idp` uses) and any key of the test
// PKI as private_key_file. The relying party has read both already.
func (o *SCAOIDC) refusePublished() error {
	if o == nil {
		return nil
	}
	var found []string
	if secret, err := secretValue("client_secret", o.ClientSecret, o.ClientSecretFile); err == nil && published.Secret(secret) {
		found = append(found, "client_secret (OBGW_SCA_OIDC_CLIENT_SECRET, OBGW_SCA_OIDC_CLIENT_SECRET_FILE) is the test identity provider's, published in this repository")
	}
	if o.PrivateKeyFile != "" {
		if raw, err := os.ReadFile(o.PrivateKeyFile); err == nil {
			if _, keys, _ := pemContents(raw); slices.ContainsFunc(keys, published.PublicKey) {
				found = append(found, fmt.Sprintf("private_key_file (OBGW_SCA_OIDC_PRIVATE_KEY_FILE) %s is a key of the published test PKI", o.PrivateKeyFile))
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("a production deployment uses no published test credential: %s; register obgw at your bank's identity provider and give the credentials it issues",
		strings.Join(found, "; "))
}

// unmarshalSCAOIDC reads the sca_oidc block:
//
//	sca_oidc {
//	    issuer             <URL>
//	    client_id          <id>
//	    client_secret      <secret, or {env.NAME}>
//	    client_secret_file <file>
//	    private_key_file   <PEM file>  (private_key_jwt instead of a secret)
//	    private_key_id     <kid>
//	    customer_claim     <claim>     (default sub)
//	    scopes             <scope>...
//	    acr_values         <acr>...
//	    payment_acr_values <acr>...
//	    app_param          <name> <value>  (repeatable)
//	    redirect_url       <https URL of /v1/sca/callback>
//	    clock_skew         <duration>  (default 1m)
//	}
//
// Empty values (unset environment placeholders) keep the defaults; list
// values may be given as one space-separated argument.
func unmarshalSCAOIDC(d *caddyfile.Dispenser) (*SCAOIDC, error) {
	o := new(SCAOIDC)
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		var args []string
		for _, a := range d.RemainingArgs() {
			args = append(args, strings.Fields(a)...)
		}
		switch name {
		case "scopes":
			o.Scopes = args
			continue
		case "acr_values":
			o.ACRValues = args
			continue
		case "payment_acr_values":
			o.PaymentACRValues = args
			continue
		case "app_param":
			if len(args) == 0 {
				continue
			}
			if len(args) != 2 {
				return nil, d.Errf("sca_oidc app_param wants a name and a value, got %q", args)
			}
			if o.AppParams == nil {
				o.AppParams = map[string][]string{}
			}
			o.AppParams[args[0]] = append(o.AppParams[args[0]], args[1])
			continue
		}
		if len(args) > 1 {
			return nil, d.Errf("sca_oidc %s takes one value, got %d", name, len(args))
		}
		var v string
		if len(args) == 1 {
			v = args[0]
		}
		switch name {
		case "issuer":
			o.Issuer = v
		case "client_id":
			o.ClientID = v
		case "client_secret":
			o.ClientSecret = v
		case "client_secret_file":
			o.ClientSecretFile = v
		case "private_key_file":
			o.PrivateKeyFile = v
		case "private_key_id":
			o.PrivateKeyID = v
		case "customer_claim":
			o.CustomerClaim = v
		case "redirect_url":
			o.RedirectURL = v
		case "clock_skew":
			if v == "" {
				continue
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return nil, d.Errf("sca_oidc clock_skew %q: %v", v, err)
			}
			o.ClockSkew = caddy.Duration(dur)
		default:
			return nil, d.Errf("unknown sca_oidc option %q", name)
		}
	}
	return o, nil
}
