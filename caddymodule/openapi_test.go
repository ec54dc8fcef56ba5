package caddymodule

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/openapi"
)

// TestOpenAPIServesTheDocument: GET answers the built-in document as JSON
// with an entity tag, a request with that tag 304, HEAD no body, and any
// other method 405 SERVICE_INVALID.
func TestOpenAPIServesTheDocument(t *testing.T) {
	var o OpenAPI
	if err := o.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	want, _ := openapi.JSON()
	serve := func(method string, header http.Header) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/v1/openapi.json", nil)
		for k, v := range header {
			r.Header[k] = v
		}
		w := httptest.NewRecorder()
		if err := o.ServeHTTP(w, r, nil); err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := serve("GET", nil)
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !bytes.Equal(w.Body.Bytes(), want) {
		t.Fatalf("GET: %d %s, %d bytes", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
	}
	etag := w.Header().Get("ETag")
	if w := serve("GET", http.Header{"If-None-Match": {etag}}); etag == "" || w.Code != 304 {
		t.Errorf("GET with the ETag %q: %d", etag, w.Code)
	}
	if w := serve("HEAD", nil); w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d bytes", w.Code, w.Body.Len())
	}
	if w := serve("POST", nil); w.Code != 405 || !bytes.Contains(w.Body.Bytes(), []byte(`"SERVICE_INVALID"`)) {
		t.Errorf("POST: %d %s", w.Code, w.Body)
	}
}

// TestOpenAPIGatewayRoutesShipped: every operation the document says the
// gateway serves itself (x-obgw-served-by: gateway; the backend's own are
// held to its routes by the backend's tests) has a path matcher in the
// shipped Caddyfile's adapted configuration.
func TestOpenAPIGatewayRoutesShipped(t *testing.T) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	adapted, err := os.ReadFile(filepath.Join("testdata", "Caddyfile.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Extensions["x-obgw-served-by"] != "gateway" {
				continue
			}
			n++
			if !bytes.Contains(adapted, []byte(strconv.Quote(path))) {
				t.Errorf("%s %s: the document says the gateway serves it, but no route of the shipped Caddyfile matches %s", method, path, path)
			}
		}
	}
	if n == 0 {
		t.Error("no operation is marked x-obgw-served-by: gateway")
	}
}
