package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/openapi"
)

func init() {
	caddy.RegisterModule(OpenAPI{})
	httpcaddyfile.RegisterHandlerDirective("obgw_openapi", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		o := new(OpenAPI)
		err := o.UnmarshalCaddyfile(h.Dispenser)
		return o, err
	})
	httpcaddyfile.RegisterDirectiveOrder("obgw_openapi", httpcaddyfile.Before, "respond")
}

// OpenAPI is the obgw_openapi handler: it answers the OpenAPI 3.1 document
// of the interface (package openapi), the one built into this binary, so
// that the document a TPP reads is the version of the code that answers
// it. It is not signed: TPPs and their tools read it before they have a
// certificate. The shipped Caddyfile serves it at /v1/openapi.json
// (policies/openapi.caddy), under the base path too.
type OpenAPI struct {
	body []byte
	etag string
}

// CaddyModule returns the Caddy module information.
func (OpenAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_openapi", New: func() caddy.Module { return new(OpenAPI) }}
}

// Provision takes the document's JSON, converted once per process, and
// its entity tag.
func (o *OpenAPI) Provision(caddy.Context) error {
	b, err := openapi.JSON()
	if err != nil {
		return fmt.Errorf("obgw_openapi: %v", err)
	}
	sum := sha256.Sum256(b)
	o.body, o.etag = b, `"`+base64.RawURLEncoding.EncodeToString(sum[:12])+`"`
	return nil
}

// ServeHTTP answers the document to GET and HEAD (304 to a request that
// has it already), and 405 SERVICE_INVALID to any other method.
func (o *OpenAPI) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		bgerror.New(bgerror.CodeServiceInvalid, r.Method+" is not allowed on the OpenAPI document; GET it").Write(w)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", o.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
	return nil
}

// UnmarshalCaddyfile takes no options: obgw_openapi.
func (o *OpenAPI) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() || d.NextBlock(0) {
		return d.Err("obgw_openapi takes no options")
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*OpenAPI)(nil)
	_ caddyhttp.MiddlewareHandler = (*OpenAPI)(nil)
	_ caddyfile.Unmarshaler       = (*OpenAPI)(nil)
)
