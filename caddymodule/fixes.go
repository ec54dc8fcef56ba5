package caddymodule

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/obgw/obgw/gateway/fixes"
)

func init() {
	caddy.RegisterModule(Fixes{})
}

// FixEntry is one x-accept-fix value of the policy.
type FixEntry struct {
	// Name is the x-accept-fix value, e.g. amount-as-string.
	Name string `json:"name"`
	// Introduced is the date (YYYY-MM-DD) from which a TPP may opt in.
	Introduced string `json:"introduced"`
	// DefaultSince is the date (YYYY-MM-DD) from which the fix is in effect
	// for everyone.
	DefaultSince string `json:"default_since"`
}

// Fixes is the obgw_fixes handler: it decides which x-accept-fix behaviours
// are in effect for the request (opted in with the x-accept-fix header, or
// past their default-since date), echoes them in the x-accept-fix response
// header, and rewrites the backend's newest-shape JSON into the legacy shape
// of every fix not in effect. With every fix in effect (the usual case) the
// response streams through untouched.
type Fixes struct {
	// Fixes are the fixes and their dates; empty: the four fixes of the
	// interface description with their dates.
	Fixes []FixEntry `json:"fixes,omitempty"`

	registry *fixes.Registry
	logger   *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Fixes) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.obgw_fixes",
		New: func() caddy.Module { return new(Fixes) },
	}
}

// Provision builds the fix registry.
func (f *Fixes) Provision(ctx caddy.Context) error {
	f.logger = ctx.Logger()
	list := fixes.DefaultFixes()
	if len(f.Fixes) > 0 {
		list = list[:0]
		for _, e := range f.Fixes {
			in, err := time.Parse(time.DateOnly, e.Introduced)
			if err != nil {
				return fmt.Errorf("obgw_fixes: %s: introduced must be YYYY-MM-DD", e.Name)
			}
			def, err := time.Parse(time.DateOnly, e.DefaultSince)
			if err != nil {
				return fmt.Errorf("obgw_fixes: %s: default_since must be YYYY-MM-DD", e.Name)
			}
			list = append(list, fixes.Fix{Name: e.Name, Introduced: in, DefaultSince: def})
		}
	}
	r, err := fixes.NewRegistry(list)
	if err != nil {
		return fmt.Errorf("obgw_fixes: %v", err)
	}
	f.registry = r
	return nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ServeHTTP applies the fixes.
func (f *Fixes) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	inEffect := f.registry.InEffect(fixes.ParseHeader(r.Header.Values("X-Accept-Fix")), now())
	names := inEffect.String()
	w.Header().Set("X-Accept-Fix", names)
	caddyhttp.SetVar(r.Context(), "obgw.fixes", names)
	legacy := f.registry.Legacy(inEffect)
	if legacy.Empty() {
		return next.ServeHTTP(w, r)
	}
	// The body is rewritten here, so the backend must not compress it
	// (an encode handler outside this one compresses the result).
	r.Header.Del("Accept-Encoding")
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	rec := caddyhttp.NewResponseRecorder(w, buf, func(status int, h http.Header) bool {
		mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
		return err == nil && (mt == "application/json" || (len(mt) > 5 && mt[len(mt)-5:] == "+json")) && h.Get("Content-Encoding") == ""
	})
	if err := next.ServeHTTP(rec, r); err != nil {
		return err
	}
	if !rec.Buffered() {
		return nil
	}
	body := buf.Bytes()
	out, err := f.registry.Rewrite(body, inEffect)
	if err != nil {
		// Not JSON after all: pass it on as it came.
		f.logger.Debug("x-accept-fix rewrite skipped", zap.Error(err))
		out = body
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(rec.Status())
	_, err = w.Write(out)
	return err
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Fixes)(nil)
	_ caddyhttp.MiddlewareHandler = (*Fixes)(nil)
)
