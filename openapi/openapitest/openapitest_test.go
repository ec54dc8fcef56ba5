package openapitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheck: what Check lets pass and what it reports, on the document
// built into obgw.
func TestCheck(t *testing.T) {
	c, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	const (
		json    = "application/json"
		unknown = `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN","text":"no such endpoint"}]}`
		invalid = `{"tppMessages":[{"category":"ERROR","code":"SERVICE_INVALID","text":"no such method"}]}`
	)
	signed := func(r *http.Request) *http.Request {
		r.Header.Set("X-Request-ID", "0b7cd8a4-96b3-4c5e-a5cb-3e2f1f1c2d3e")
		r.Header.Set("Date", "Wed, 25 Nov 2026 10:00:00 GMT")
		r.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
		r.Header.Set("Signature", `keyId="SN=1,CA=CN=x",algorithm="rsa-sha256",headers="date x-request-id",signature="AAAA"`)
		r.Header.Set("TPP-Signature-Certificate", "AAAA")
		return r
	}
	for _, tc := range []struct {
		name   string
		x      Exchange
		report string // "" when it conforms
	}{
		{"health", Exchange{Request: httptest.NewRequest("GET", "/healthz", nil), Status: 200,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"status":"UP"}`)}, ""},
		{"health under the base path", Exchange{Request: httptest.NewRequest("GET", "/api-sandbox/v1/openapi.json", nil), Status: 200,
			Header: http.Header{"Content-Type": {json}, "Cache-Control": {"public, max-age=300"}}, Body: []byte(`{"openapi":"3.1.0","info":{},"paths":{}}`)}, ""},
		{"health answering what it does not", Exchange{Request: httptest.NewRequest("GET", "/healthz", nil), Status: 200,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"status":"DOWN"}`)}, "response: "},
		{"a status the operation does not list", Exchange{Request: httptest.NewRequest("GET", "/healthz", nil), Status: 418,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{}`)}, "status is not supported"},
		{"unknown path, 404 RESOURCE_UNKNOWN", Exchange{Request: httptest.NewRequest("GET", "/v2/nothing", nil), Status: 404,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(unknown)}, ""},
		{"unknown path, answered", Exchange{Request: httptest.NewRequest("GET", "/v2/nothing", nil), Status: 200,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{}`)}, "the document has no path /v2/nothing (answered 200)"},
		{"unknown path, 404 of another code", Exchange{Request: httptest.NewRequest("GET", "/v2/nothing", nil), Status: 404,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(invalid)}, "error code SERVICE_INVALID, want RESOURCE_UNKNOWN"},
		{"unknown path, 404 page", Exchange{Request: httptest.NewRequest("GET", "/v2/nothing", nil), Status: 404,
			Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<p>not found`)}, `error answer of type "text/html"`},
		{"health is not under the base path", Exchange{Request: httptest.NewRequest("GET", "/api-sandbox/healthz", nil), Status: 404,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(unknown)}, ""},
		{"a redirect's link", Exchange{Request: httptest.NewRequest("GET", "/v1/sca/s/abc", nil), Status: 303,
			Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Location": {"/v1/sca/enc!!abc"}}, Body: []byte(`<a href="/v1/sca/enc!!abc">See Other</a>.`)}, ""},
		{"a redirect without a body", Exchange{Request: httptest.NewRequest("POST", "/v1/sca/enc!!abc", strings.NewReader("step=confirm&csrf=x")), RequestBody: []byte("step=confirm&csrf=x"),
			SkipRequest: true, Status: 303, Header: http.Header{"Location": {"/v1/sca/enc!!abc"}}}, ""},
		{"a body where the document gives none", Exchange{Request: signed(httptest.NewRequest("DELETE", "/v1/tpp-contacts", nil)), Security: true, Status: 204,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{}`)}, "a body where the document gives none"},
		{"unknown method, 405 SERVICE_INVALID", Exchange{Request: httptest.NewRequest("PATCH", "/healthz", nil), Status: 405,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(invalid)}, ""},
		{"unknown method, answered", Exchange{Request: httptest.NewRequest("PATCH", "/healthz", nil), Status: 200,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"status":"UP"}`)}, "the document has no PATCH on /healthz"},
		{"signed request", Exchange{Request: signed(httptest.NewRequest("GET", "/v1/accounts", nil)), Security: true, Status: 400,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`)}, ""},
		{"unsigned request", Exchange{Request: httptest.NewRequest("GET", "/v1/accounts", nil), Security: true, Status: 400,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"tppMessages":[{"category":"ERROR","code":"SIGNATURE_MISSING"}]}`)},
			"header Signature missing"},
		{"unsigned request sent so on purpose", Exchange{Request: httptest.NewRequest("GET", "/v1/accounts", nil), Security: true, SkipRequest: true, Status: 400,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"tppMessages":[{"category":"ERROR","code":"SIGNATURE_MISSING"}]}`)}, ""},
		{"unsigned request sent so on purpose, its answer still checked", Exchange{Request: httptest.NewRequest("GET", "/v1/accounts", nil), Security: true, SkipRequest: true, Status: 400,
			Header: http.Header{"Content-Type": {json}}, Body: []byte(`{"tppMessages":[]}`)}, "response: "},
		{"PSU-IP-Address not an address", Exchange{Request: func() *http.Request {
			r := signed(httptest.NewRequest("GET", "/v1/accounts", nil))
			r.Header.Set("PSU-IP-Address", "300.1.1.1")
			return r
		}(), Security: true, Status: 400, Header: http.Header{"Content-Type": {json}},
			Body: []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`)}, "not valid ipv4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Check(tc.x)
			switch {
			case tc.report == "" && err != nil:
				t.Fatalf("reported %v", err)
			case tc.report != "" && err == nil:
				t.Fatalf("not reported, want %q", tc.report)
			case tc.report != "" && !strings.Contains(err.Error(), tc.report):
				t.Fatalf("reported %v, want %q", err, tc.report)
			}
		})
	}
}

// TestBasePath: under another base path the document's paths are served
// there, and the default one is a path like any other the document lacks.
func TestBasePath(t *testing.T) {
	c, err := BasePath("/psd2")
	if err != nil {
		t.Fatal(err)
	}
	ok := Exchange{Request: httptest.NewRequest("GET", "/psd2/v1/openapi.json", nil), Status: 200,
		Header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"public, max-age=300"}}, Body: []byte(`{"openapi":"3.1.0","info":{},"paths":{}}`)}
	if err := c.Check(ok); err != nil {
		t.Errorf("under /psd2: %v", err)
	}
	ok.Request = httptest.NewRequest("GET", "/api-sandbox/v1/openapi.json", nil)
	if err := c.Check(ok); err == nil || !strings.Contains(err.Error(), "the document has no path /api-sandbox/v1/openapi.json") {
		t.Errorf("under /api-sandbox: %v", err)
	}
}
