package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/openapi"
)

// The OpenAPI document (openapi/obgw.yaml) is kept true here, in two ways:
//   - TestOpenAPICoversEveryRoute: every route routes.go registers is an
//     operation of the document, and every operation the backend serves
//     is a route;
//   - every test server of this package is built by newTestServer, which
//     checks each request it serves and each response it sends against
//     the document (contractChecked); TestEveryTestServerIsChecked fails
//     on a test server built another way.
//
// A response is always checked: its status must be one the operation
// lists, with the content type, headers and body the document gives it.
// A request is checked when the backend took it (any status below 400):
// the input-bounds and error tests send invalid requests on purpose, and
// their answer is what the document must then allow. The signature and
// certificate headers (the document's security schemes) are the gateway's
// to check; the tests stand after it and send none.

// contract is the parsed document and its router, shared by every test.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		return nil, err
	}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	// The SCA pages are HTML, which openapi3filter does not decode by
	// itself: as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	return &contract{doc: doc, router: r}, nil
})

// newTestServer serves h over TLS as every test of this package does,
// checking each exchange against the OpenAPI document: a request or
// response the document does not allow fails t.
func newTestServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	return httptest.NewTLSServer(contractChecked(t, h))
}

// contractChecked wraps h so that every request it serves and every
// response it sends is checked against the document.
func contractChecked(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("%s %s: reading the request body: %v", r.Method, r.URL, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sent := r.Clone(r.Context())
		sent.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recordedResponse{w: w}
		h.ServeHTTP(rec, r)
		if err := c.check(sent, body, rec); err != nil {
			t.Errorf("OpenAPI document: %s %s answered %d: %v", sent.Method, sent.URL, rec.status(), err)
		}
	})
}

// check checks one exchange: the request as received (body its bytes) and
// the response rec recorded.
func (c *contract) check(r *http.Request, body []byte, rec *recordedResponse) error {
	status := rec.status()
	route, params, err := c.router.FindRoute(r)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		if status == http.StatusNotFound {
			return c.errorBody(rec, "RESOURCE_UNKNOWN")
		}
		return fmt.Errorf("the document has no path %s (the backend answered it)", r.URL.Path)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		if status == http.StatusMethodNotAllowed {
			return c.errorBody(rec, "SERVICE_INVALID")
		}
		return fmt.Errorf("the document has no %s on %s (the backend answered it)", r.Method, r.URL.Path)
	case err != nil:
		return fmt.Errorf("finding the operation: %v", err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			// The gateway's: see the comment at the top.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
		},
	}
	var problems []string
	if status < 400 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			problems = append(problems, "request: "+err.Error())
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 rec.header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes(rec.body.Bytes())
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		problems = append(problems, "response: "+err.Error()+"\nbody: "+truncated(rec.body.String()))
	}
	if problems != nil {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// errorBody checks an answer that no operation describes (an unknown path
// or method) against the error body with code.
func (c *contract) errorBody(rec *recordedResponse, code string) error {
	if ct := rec.header().Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("error answer of type %q, want application/json", rec.header().Get("Content-Type"))
	}
	var v any
	if err := json.Unmarshal(rec.body.Bytes(), &v); err != nil {
		return fmt.Errorf("error body is not JSON: %v", err)
	}
	schema := c.doc.Components.Schemas["ErrorBody"].Value
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("error body: %v", err)
	}
	msgs := v.(map[string]any)["tppMessages"].([]any)
	if got := msgs[0].(map[string]any)["code"]; got != code {
		return fmt.Errorf("error code %v, want %s", got, code)
	}
	return nil
}

func truncated(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// recordedResponse passes a response on and keeps a copy of it.
type recordedResponse struct {
	w       http.ResponseWriter
	code    int
	sent    http.Header // the header as it was when the status was sent
	body    bytes.Buffer
	written bool
}

func (rr *recordedResponse) Header() http.Header { return rr.w.Header() }

func (rr *recordedResponse) WriteHeader(code int) {
	if !rr.written {
		rr.written, rr.code, rr.sent = true, code, rr.w.Header().Clone()
	}
	rr.w.WriteHeader(code)
}

func (rr *recordedResponse) Write(b []byte) (int, error) {
	if !rr.written {
		rr.WriteHeader(http.StatusOK)
	}
	rr.body.Write(b)
	return rr.w.Write(b)
}

// Flush passes a flush on, as the server's own writer would take it.
func (rr *recordedResponse) Flush() {
	if f, ok := rr.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rr *recordedResponse) Unwrap() http.ResponseWriter { return rr.w }

func (rr *recordedResponse) status() int {
	if !rr.written {
		return http.StatusOK
	}
	return rr.code
}

func (rr *recordedResponse) header() http.Header {
	if rr.sent != nil {
		return rr.sent
	}
	return rr.w.Header()
}

// TestOpenAPICoversEveryRoute: the routes the backend registers (a
// sandbox's: all of them) are exactly the document's operations that the
// backend serves; those the gateway serves itself say so
// (x-obgw-served-by: gateway).
func TestOpenAPICoversEveryRoute(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	routes := New(Config{Sandbox: true}).Routes()
	var documented []string
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Extensions["x-obgw-served-by"] == "gateway" {
				continue
			}
			documented = append(documented, method+" "+path)
		}
	}
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not in the OpenAPI document (openapi/obgw.yaml)", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("the OpenAPI document has %s, which the backend does not serve (mark an operation the gateway serves x-obgw-served-by: gateway)", d)
		}
	}
	if len(routes) < 80 {
		t.Errorf("only %d routes registered", len(routes))
	}
}

// TestOpenAPICodeLists: the document's currency and country codes are
// exactly those the backend accepts (backend/codelists, the interface
// description's lists).
func TestOpenAPICodeLists(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema string
		n      int
		valid  func(string) bool
	}{
		{"CurrencyCode", 3, codelists.ValidCurrency},
		{"CountryCode", 2, codelists.ValidCountry},
	} {
		documented := map[string]bool{}
		for _, v := range c.doc.Components.Schemas[tc.schema].Value.Enum {
			documented[v.(string)] = true
			if !tc.valid(v.(string)) {
				t.Errorf("%s %s is documented but refused", tc.schema, v)
			}
		}
		// Every code of n upper-case letters the backend accepts.
		code := make([]byte, tc.n)
		var walk func(i int)
		walk = func(i int) {
			if i == tc.n {
				if tc.valid(string(code)) && !documented[string(code)] {
					t.Errorf("%s %s is accepted but not documented", tc.schema, code)
				}
				return
			}
			for c := byte('A'); c <= 'Z'; c++ {
				code[i] = c
				walk(i + 1)
			}
		}
		walk(0)
	}
}

// TestEveryTestServerIsChecked: no test of this package starts a server
// but newTestServer, so every exchange of the suite is checked against
// the OpenAPI document.
func TestEveryTestServerIsChecked(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok && fn.Name.Name == "newTestServer" && fn.Recv == nil {
				return false // the one place a server is started
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "httptest" && strings.HasPrefix(sel.Sel.Name, "New") && strings.HasSuffix(sel.Sel.Name, "Server") {
				t.Errorf("%s: httptest.%s: start test servers with newTestServer, which checks them against the OpenAPI document", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
