package caddymodule

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Ready{})
	httpcaddyfile.RegisterHandlerDirective("obgw_ready", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		r := new(Ready)
		err := r.UnmarshalCaddyfile(h.Dispenser)
		return r, err
	})
	httpcaddyfile.RegisterDirectiveOrder("obgw_ready", httpcaddyfile.Before, "respond")
}

// Ready is the obgw_ready handler (/readyz): 200 when the backend database
// answers, with Redis configured Redis does, and every trust source can
// serve (App.trustProblems: a QTSP CA, the CRLs, the bank's seal, the TLS
// certificates within their validity); 503 naming what is down.
// It is unsigned, for load balancers and orchestrators.
type Ready struct {
	// Database is the backend database, as for obgw_backend ("" for the
	// embedded SQLite file under DataDir). Empty Database and DataDir with
	// NoDatabase set skips the check (a gateway with a separate backend).
	Database string `json:"database,omitempty"`
	// DataDir is the SQLite directory, as for obgw_backend.
	DataDir string `json:"data_dir,omitempty"`
	// NoDatabase skips the database check.
	NoDatabase bool `json:"no_database,omitempty"`

	app     *App
	shared  *sharedStore
	poolKey string
}

// CaddyModule returns the Caddy module information.
func (Ready) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.obgw_ready", New: func() caddy.Module { return new(Ready) }}
}

// Provision finds the shared store and the app's Redis client; no I/O.
func (r *Ready) Provision(ctx caddy.Context) error {
	if a, err := ctx.AppIfConfigured("obgw"); err == nil {
		r.app = a.(*App)
	}
	if r.NoDatabase {
		return nil
	}
	if r.DataDir == "" {
		env := EnvProduction
		if r.app != nil {
			env = r.app.Environment
		}
		r.DataDir = defaultDataDir(env)
	}
	url, err := secretValue("database", r.Database, "")
	if err != nil {
		return fmt.Errorf("obgw_ready: %v", err)
	}
	if url == "" {
		url = filepath.Join(r.DataDir, "obgw.db")
	}
	r.poolKey = url
	v, _, err := stores.LoadOrNew(url, func() (caddy.Destructor, error) {
		return &sharedStore{url: url}, nil
	})
	if err != nil {
		return err
	}
	r.shared = v.(*sharedStore)
	return nil
}

// Cleanup releases the shared store.
func (r *Ready) Cleanup() error {
	if r.poolKey == "" {
		return nil
	}
	_, err := stores.Delete(r.poolKey)
	return err
}

// ServeHTTP answers readiness.
func (r *Ready) ServeHTTP(w http.ResponseWriter, req *http.Request, _ caddyhttp.Handler) error {
	ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
	defer cancel()
	var down []string
	if r.shared != nil && r.shared.ping(ctx) != nil {
		down = append(down, "database")
	}
	if r.app != nil && r.app.state != nil && r.app.state.ping(ctx) != nil {
		down = append(down, "redis")
	}
	if r.app != nil {
		down = append(down, r.app.trustProblems(now())...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if len(down) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		obgwMetrics.answered(familyHealth, http.StatusServiceUnavailable, "", byGateway)
		_, err := w.Write(downBody(down))
		return err
	}
	obgwMetrics.answered(familyHealth, http.StatusOK, "", byGateway)
	_, err := w.Write([]byte(`{"status":"UP"}`))
	return err
}

// UnmarshalCaddyfile sets up the handler:
//
//	obgw_ready {
//	    database <url>
//	    data_dir <dir>
//	    no_database
//	}
func (r *Ready) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		name := d.Val()
		args := d.RemainingArgs()
		switch name {
		case "database", "data_dir":
			if len(args) > 1 {
				return d.ArgErr()
			}
			if len(args) == 1 {
				if name == "database" {
					r.Database = args[0]
				} else {
					r.DataDir = args[0]
				}
			}
		case "no_database":
			r.NoDatabase = true
		default:
			return d.Errf("unknown obgw_ready option %q", name)
		}
	}
	return nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Ready)(nil)
	_ caddy.CleanerUpper          = (*Ready)(nil)
	_ caddyhttp.MiddlewareHandler = (*Ready)(nil)
	_ caddyfile.Unmarshaler       = (*Ready)(nil)
)

// downBody is /readyz's answer naming what is down.
func downBody(down []string) []byte {
	b, _ := json.Marshal(struct {
		Status string   `json:"status"`
		Down   []string `json:"down"`
	}{"DOWN", down})
	return b
}
