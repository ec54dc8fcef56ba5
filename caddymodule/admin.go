package caddymodule

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/tppcontacts"
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
// running configuration's backends use.
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
	return []caddy.AdminRoute{{Pattern: "/obgw/tpp-contacts", Handler: caddy.AdminHandlerFunc(serveTPPContacts)}}
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

// Interface guards.
var _ caddy.AdminRouter = (*AdminAPI)(nil)
