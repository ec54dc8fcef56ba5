package backend

import (
	"net/http"
	"slices"
	"strings"

	"github.com/obgw/obgw/backend/pathid"
	"github.com/obgw/obgw/backend/sca"
	"github.com/obgw/obgw/bgerror"
)

// routeMux is the backend's ServeMux, keeping the pattern of every route
// registered on it (routes.go registers them all). The OpenAPI document's
// coverage test compares them with the document's operations, so a route
// the document lacks, or a documented one the backend no longer serves,
// fails a test.
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

// Handle registers h for pattern, served as route serves it, and records
// the pattern.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, &route{
		pattern: pattern,
		next:    h,
		// A sealed link is longer than an id; the sealer bounds it.
		checkIDs: pattern != "GET "+sca.SealedBase+"{sealed}",
		page:     strings.Contains(pattern, " /v1/sca/") || strings.Contains(pattern, " "+sca.PSUBase+"/"),
	})
}

// HandleFunc registers f for pattern as Handle does.
func (m *routeMux) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(f))
}

// route is one registered route, as the mux's one match of a request
// finds it: it marks the request matched (routeWriter), starts the
// route's span, and answers an id no resource of ours can have as an
// unknown resource, alike on every store, without asking the store.
type route struct {
	pattern  string
	next     http.Handler
	checkIDs bool // pathid.PlausiblePath applies
	page     bool // a PSU page: its unknown links are an HTML page's
}

func (rt *route) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rw, ok := w.(*routeWriter); ok {
		rw.matched = true
		w = rw.ResponseWriter
	}
	r, span := startSpan(r, rt.pattern)
	if span != nil {
		defer span.End()
	}
	if rt.checkIDs && !pathid.PlausiblePath(r.URL.EscapedPath()) {
		if rt.page {
			sca.UnknownLink(w)
			return
		}
		bgerror.NewStatus(http.StatusNotFound, bgerror.CodeResourceUnknown, "no such resource").Write(w)
		return
	}
	rt.next.ServeHTTP(w, r)
}

// routeWriter is what the mux writes to: a route that matched passes the
// writer it wraps on (and marks it matched), and what the mux answers
// itself when none matched (its plain-text 404 or 405, a redirect) goes
// to probe, for ServeHTTP to answer in Berlin Group terms.
type routeWriter struct {
	http.ResponseWriter
	matched bool
	probe   statusProbe
}

func (rw *routeWriter) Header() http.Header {
	if rw.matched {
		return rw.ResponseWriter.Header()
	}
	return rw.probe.Header()
}

func (rw *routeWriter) WriteHeader(status int) {
	if rw.matched {
		rw.ResponseWriter.WriteHeader(status)
		return
	}
	rw.probe.WriteHeader(status)
}

func (rw *routeWriter) Write(b []byte) (int, error) {
	if rw.matched {
		return rw.ResponseWriter.Write(b)
	}
	return rw.probe.Write(b)
}

// Routes returns the pattern of every route the server serves ("GET
// /v1/accounts/{id}"), in the order routes.go registers them. The sandbox
// routes are among them only in a sandbox (Config.Sandbox).
func (s *Server) Routes() []string { return slices.Clone(s.mux.patterns) }
