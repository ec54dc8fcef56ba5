package backend

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/openapi/openapitest"
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

// newTestServer serves h over TLS as every test of this package does,
// checking each exchange against the OpenAPI document: a request or
// response the document does not allow fails t.
func newTestServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	return httptest.NewTLSServer(contractChecked(t, h))
}

// contractChecked wraps h so that every request it serves and every
// response it sends is checked against the document (openapitest, the
// rules the integration tests' client applies too).
func contractChecked(t testing.TB, h http.Handler) http.Handler {
	t.Helper()
	c, err := openapitest.Document()
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
		rec := &recordedResponse{w: w}
		h.ServeHTTP(rec, r)
		err = c.Check(openapitest.Exchange{
			Request:     sent,
			RequestBody: body,
			// See the comment at the top.
			SkipRequest: rec.status() >= 400,
			Status:      rec.status(),
			Header:      rec.header(),
			Body:        rec.body.Bytes(),
		})
		if err != nil {
			t.Errorf("OpenAPI document: %s %s answered %d: %v", sent.Method, sent.URL, rec.status(), err)
		}
	})
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
	c, err := openapitest.Document()
	if err != nil {
		t.Fatal(err)
	}
	routes := New(Config{Sandbox: true}).Routes()
	var documented []string
	for path, item := range c.Doc().Paths.Map() {
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
	c, err := openapitest.Document()
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
		for _, v := range c.Doc().Components.Schemas[tc.schema].Value.Enum {
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
