package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/backend"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/tppcontacts"
	"github.com/obgw/obgw/bgerror"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// AdminAPI adds obgw's operator routes to Caddy's admin endpoint, which
// TPPs never reach (keep it on the loopback or a unix socket, README
// "Safe defaults"):
//
//	GET /obgw/tpp-contacts?format=csv|json
//
// lists every TPP's registered contact addresses from the databases the
// running configuration's backends use;
//
//	POST /obgw/import
//
// imports the bank's own data into the database of the configuration's
// in-process backend, as `obgw import` does (backend.Import): 200 with
// what it changed, 400 with the rules the document breaks (nothing
// changed), 409 when the backends use more than one database.
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.obgw",
		New: func() caddy.Module { return new(AdminAPI) },
	}
}

// Routes returns the admin routes.
func (AdminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{
		{Pattern: "/obgw/tpp-contacts", Handler: caddy.AdminHandlerFunc(serveTPPContacts)},
		{Pattern: "/obgw/import", Handler: caddy.AdminHandlerFunc(serveImport)},
	}
}

func serveTPPContacts(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method not allowed")}
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = tppcontacts.FormatCSV
	}
	if format != tppcontacts.FormatCSV && format != tppcontacts.FormatJSON {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("format must be csv or json")}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	var list []store.TPPContacts
	var err error
	stores.Range(func(_, v any) bool {
		var st store.Store
		if st, err = v.(*sharedStore).get(ctx); err != nil {
			return false
		}
		var l []store.TPPContacts
		if l, err = st.ListTPPContacts(ctx); err != nil {
			return false
		}
		list = append(list, l...)
		return true
	})
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: fmt.Errorf("the backend database is unavailable: %v", err)}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].TPP < list[j].TPP })
	if format == tppcontacts.FormatJSON {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	}
	return tppcontacts.Export(w, format, list)
}

func serveImport(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method not allowed: POST the import document")}
	}
	var open []*sharedStore
	stores.Range(func(_, v any) bool {
		open = append(open, v.(*sharedStore))
		return true
	})
	switch len(open) {
	case 0:
		return caddy.APIError{HTTPStatus: http.StatusConflict, Err: fmt.Errorf("this configuration runs no in-process backend (obgw_backend) to import into")}
	case 1:
	default:
		return caddy.APIError{HTTPStatus: http.StatusConflict, Err: fmt.Errorf("this configuration's backends use %d databases: import into one with `obgw import --database`", len(open))}
	}
	doc, err := io.ReadAll(http.MaxBytesReader(w, r.Body, backend.MaxImportBytes))
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusRequestEntityTooLarge, Err: fmt.Errorf("the document could not be read (at most %d MiB): %v", backend.MaxImportBytes>>20, err)}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Minute)
	defer cancel()
	st, err := open[0].get(ctx)
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: fmt.Errorf("the backend database is unavailable: %v", err)}
	}
	report, err := backend.Import(ctx, st, doc, now())
	var rule *bgerror.Error
	if errors.As(err, &rule) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, err := w.Write(rule.Body())
		return err
	}
	if err != nil {
		return caddy.APIError{HTTPStatus: http.StatusServiceUnavailable, Err: fmt.Errorf("nothing was imported: %v", err)}
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(report)
}

// Interface guards.
var _ caddy.AdminRouter = (*AdminAPI)(nil)
