package backend

import (
	"net/http"
	"slices"
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

// Handle registers h for pattern and records the pattern.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc registers f for pattern and records the pattern.
func (m *routeMux) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, f)
}

// Routes returns the pattern of every route the server serves ("GET
// /v1/accounts/{id}"), in the order routes.go registers them. The sandbox
// routes are among them only in a sandbox (Config.Sandbox).
func (s *Server) Routes() []string { return slices.Clone(s.mux.patterns) }
