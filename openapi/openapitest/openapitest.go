package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/obgw/obgw/openapi"
)

// Checker checks exchanges against one document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
}

// New returns a checker of doc, which must be valid. The router is
// gorillamux: it serves each path under every server of the document
// (/ and the base path /api-sandbox), as the gateway does. The formats the
// document uses that kin-openapi does not assert by itself (ipv4, ipv6,
// uuid) are asserted too, as doc's own.
func New(doc *openapi3.T) (*Checker, error) {
	doc.SetStringFormatValidator("ipv4", openapi3.NewIPValidator(true))
	doc.SetStringFormatValidator("ipv6", openapi3.NewIPValidator(false))
	doc.SetStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`))
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapitest: routing the document: %w", err)
	}
	return &Checker{doc: doc, router: r}, nil
}

// Document returns the checker of the document built into obgw, loaded
// once.
var Document = sync.OnceValues(func() (*Checker, error) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		return nil, err
	}
	return New(doc)
})

func init() {
	// The SCA pages are HTML, which openapi3filter does not decode by
	// itself: as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// BasePath returns a checker of the document built into obgw as a
// deployment with another base path than the document's (/api-sandbox,
// OBGW_BASE_PATH's default) serves it: the document's base path server
// moved to basePath.
func BasePath(basePath string) (*Checker, error) {
	doc, err := openapi.Load(context.Background())
	if err != nil {
		return nil, err
	}
	moved := false
	for _, s := range doc.Servers {
		if s.URL != "/" {
			s.URL, moved = basePath, true
		}
	}
	if !moved {
		return nil, errors.New("openapitest: the document names no base path server")
	}
	return New(doc)
}

// Doc returns the checker's document. The caller must not modify it.
func (c *Checker) Doc() *openapi3.T { return c.doc }

// Exchange is one request and the response it got.
type Exchange struct {
	// Request is the request as sent; its Body is not read.
	Request *http.Request
	// RequestBody is the body sent.
	RequestBody []byte
	// SkipRequest leaves the request unchecked: a test sent it invalid on
	// purpose. Its response is checked all the same.
	SkipRequest bool
	// Security requires the headers of the operation's security schemes
	// (Signature, TPP-Signature-Certificate) on the request. Tests that
	// stand behind the gateway, which checks them, send none.
	Security bool

	Status int
	Header http.Header
	Body   []byte // decoded (no Content-Encoding)
}

// Check checks x: the request against its operation (unless skipped), the
// response against the operation's answer of that status, with its
// content type, headers and body. A request the document has no operation
// for must have got the document's 404 or 405 error body.
func (c *Checker) Check(x Exchange) error {
	route, params, err := c.router.FindRoute(x.Request)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		if x.Status == http.StatusNotFound {
			return c.ErrorBody(x.Header, x.Body, "RESOURCE_UNKNOWN")
		}
		return fmt.Errorf("the document has no path %s (answered %d)", x.Request.URL.Path, x.Status)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		if x.Status == http.StatusMethodNotAllowed {
			return c.ErrorBody(x.Header, x.Body, "SERVICE_INVALID")
		}
		return fmt.Errorf("the document has no %s on %s (answered %d)", x.Request.Method, x.Request.URL.Path, x.Status)
	case err != nil:
		return fmt.Errorf("finding the operation: %v", err)
	}
	auth := openapi3filter.NoopAuthenticationFunc
	if x.Security {
		auth = headersPresent
	}
	// The validators read the request's body; give them a copy of what
	// was sent, and leave the caller's request alone.
	r := x.Request.Clone(x.Request.Context())
	r.Body = io.NopCloser(bytes.NewReader(x.RequestBody))
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{AuthenticationFunc: auth, MultiError: true,
			RejectWhenRequestBodyNotSpecified: true,
			SchemaValidationOptions:           c.doc.GetSchemaValidationOptions()},
	}
	var problems []string
	if !x.SkipRequest {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			problems = append(problems, "request: "+err.Error())
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 x.Status,
		Header:                 x.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			SchemaValidationOptions: c.doc.GetSchemaValidationOptions(),
			// OpenAPI cannot say that a body is optional: a redirect's
			// (the link an answer to a GET carries) may be absent.
			ExcludeResponseBody: x.Status/100 == 3 && len(x.Body) == 0 && x.Header.Get("Content-Type") == ""},
	}
	out.SetBodyBytes(x.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		problems = append(problems, "response: "+err.Error()+"\nbody: "+truncated(string(x.Body)))
	} else if r := route.Operation.Responses.Status(x.Status); r != nil && r.Value != nil && len(r.Value.Content) == 0 && len(x.Body) > 0 {
		// openapi3filter lets any body pass where the document gives none.
		problems = append(problems, fmt.Sprintf("response: a body where the document gives none (%q, %d bytes): %s",
			x.Header.Get("Content-Type"), len(x.Body), truncated(string(x.Body))))
	}
	if problems != nil {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// ErrorBody checks an error answer against the document's ErrorBody with
// code (any code when code is empty).
func (c *Checker) ErrorBody(header http.Header, body []byte, code string) error {
	if ct := header.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("error answer of type %q, want application/json: %s", ct, truncated(string(body)))
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %v: %s", err, truncated(string(body)))
	}
	schema := c.doc.Components.Schemas["ErrorBody"].Value
	if err := schema.VisitJSON(v, append(c.doc.GetSchemaValidationOptions(), openapi3.EnableJSONSchema2020())...); err != nil {
		return fmt.Errorf("error body: %v", err)
	}
	msgs := v.(map[string]any)["tppMessages"].([]any)
	if got := msgs[0].(map[string]any)["code"]; code != "" && got != code {
		return fmt.Errorf("error code %v, want %s", got, code)
	}
	return nil
}

// headersPresent is the document's security schemes as a test can check
// them: each is a header (apiKey in header) that must be there. Whether
// the signature verifies is the gateway's to say.
func headersPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s.Type != "apiKey" || s.In != "header" {
		return in.NewError(fmt.Errorf("security scheme %q of type %s in %s: only headers are checked", in.SecuritySchemeName, s.Type, s.In))
	}
	if in.RequestValidationInput.Request.Header.Get(s.Name) == "" {
		return in.NewError(fmt.Errorf("header %s missing", s.Name))
	}
	return nil
}

func truncated(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
