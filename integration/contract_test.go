package integration

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/obgw/obgw/openapi"
	"github.com/obgw/obgw/openapi/openapitest"
)

// Every exchange a test has with a gateway it started goes through the
// client's checkedTransport (client), which passes it to each check of
// checkedTransport.checks: the one place every request and response of
// the integration tests passes. A failed check fails the test that sent
// the request (t.Errorf with method, path, status and what failed).
//
// The first check is the OpenAPI document (openapi/obgw.yaml, through
// openapi/openapitest, the same rules the backend's test servers apply):
//   - every request is checked against its operation, including the
//     presence of the security headers (Signature and
//     TPP-Signature-Certificate) where the operation names them; a request
//     a test sends invalid on purpose is marked with badRequest, and only
//     its response is checked;
//   - every response is checked: its status must be one its operation
//     lists, with the content type, headers and body the document gives
//     it; a request to a path or method the document lacks must have got
//     the document's 404 RESOURCE_UNKNOWN or 405 SERVICE_INVALID error
//     body, anything else is a route the document lacks.
//
// What is checked is the TPP-facing site of each gateway started
// (gateway.addr): the server the document describes, under / and the base
// path (/api-sandbox, or OBGW_BASE_PATH as the test sets it). Every route of that site is in the document
// (operations, health, readiness and /v1/openapi.json), so no path is
// exempt there. Not checked, on purpose:
//   - the internal health listener (gateway.health: plain HTTP, loopback or
//     an internal interface) is not a server of the document: its /metrics
//     (Prometheus) and /.well-known/jwks.json (the bank's own backends)
//     are for the bank's systems, not TPPs, and the document omits them;
//     its /healthz, /health and /readyz are the TLS site's handlers
//     (policies/health.caddy), checked there;
//   - the admin endpoint (reload, config, pprof, the contacts export);
//   - a split deployment's backend reached directly (TestSplitDeployment),
//     and the Node upstream reached directly (upstream_test.go): not the
//     gateway's interface;
//   - hosts that are no gateway: the identity provider's pages and the
//     TPP's redirect endpoint a PSU's browser is sent to;
//   - the pages Chromium loads (sca_browser_test.go, sca_oidc_test.go):
//     see browser in sca_browser_test.go.
//
// A gateway whose routes are not the product's (a test configuration
// under integration/testdata, or a test double behind the gateway) says
// so with gateway.fixture; only its error answers are checked, against
// the document's error body, since every error the gateway itself
// produces has it.
//
// What keeps this wiring from rotting: TestClientChecksEveryExchange shows
// the checks bite (a request, an answer and a route that a copy of the
// document refuses are reported), and TestEveryClientIsChecked fails on a
// function that talks HTTP without client, but those named in unchecked
// with the server they talk to.
//
// The second check is the bank's seal (signatureCheck): on a gateway
// running the product's routes, every answer of a route the shipped
// policies sign (account information, payment initiation, baskets:
// policies/signing.caddy) is verified as a TPP verifies it
// (tppclient.ResponseVerifier against the test PKI's bank seal, pinned;
// the request's X-Request-ID echoed and signed; the Digest over the bytes
// received), and every other answer must come unsigned.

// document is the checker of the OpenAPI document built into obgw, loaded
// by TestMain.
var document *openapitest.Checker

// exchange is one request a test sent to a gateway and the answer it got,
// as the checks see it.
type exchange struct {
	gateway *gateway
	// request is the request as sent; requestBody its body, unread (nil)
	// when the request was sent invalid on purpose (badRequest), whose
	// body may never end.
	request     *http.Request
	requestBody []byte
	invalid     bool
	// response is the answer; body its bytes, decoded when the answer
	// came content-encoded to a client that asked for the raw encoding.
	response *http.Response
	body     []byte
	// wire is the body as received, before any decoding: what a
	// response's Digest covers.
	wire []byte
}

// exchangeCheck is one check every exchange passes.
type exchangeCheck interface {
	name() string
	check(x *exchange) error
}

// documentCheck checks an exchange against the OpenAPI document.
type documentCheck struct {
	doc *openapitest.Checker
}

func (documentCheck) name() string { return "OpenAPI document" }

func (d *documentCheck) check(x *exchange) error {
	if why := x.gateway.fixtureReason(); why != "" {
		if x.response.StatusCode < 400 {
			return nil
		}
		return d.doc.ErrorBody(x.response.Header, x.body, "")
	}
	doc := d.doc
	if bp := x.gateway.basePath; bp != "" {
		// The document's base path server is the default, /api-sandbox.
		c, err := basePathDocument(bp)
		if err != nil {
			return fmt.Errorf("the document under base path %s: %v", bp, err)
		}
		doc = c
	}
	return doc.Check(openapitest.Exchange{
		Request:     x.request,
		RequestBody: x.requestBody,
		SkipRequest: x.invalid,
		Security:    true,
		Status:      x.response.StatusCode,
		Header:      x.response.Header,
		Body:        x.body,
	})
}

// basePathDocument is the document as a deployment with OBGW_BASE_PATH
// set serves it, one checker per base path.
var basePathDocument = func() func(string) (*openapitest.Checker, error) {
	var mu sync.Mutex
	made := map[string]*openapitest.Checker{}
	return func(bp string) (*openapitest.Checker, error) {
		mu.Lock()
		defer mu.Unlock()
		if c := made[bp]; c != nil {
			return c, nil
		}
		c, err := openapitest.BasePath(bp)
		made[bp] = c
		return c, err
	}
}()

// checkedTransport is the RoundTripper of client: it sends with base and
// passes every exchange with a gateway the tests started to checks.
type checkedTransport struct {
	base   *http.Transport
	checks []exchangeCheck
}

func (ct *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	g := gatewayAt(req.URL.Host)
	if g == nil {
		// No gateway: the identity provider, the TPP's redirect.
		return ct.base.RoundTrip(req)
	}
	m := marksOf(req)
	if m.t == nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%s %s: no test to report this exchange's checks to: build the request with newRequest or browserRequest, or send it with send", req.Method, req.URL)
	}
	x := &exchange{gateway: g, request: req, invalid: m.invalid}
	if req.Body != nil && req.Body != http.NoBody && !m.invalid {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s %s: reading the request body: %w", req.Method, req.URL, err)
		}
		// A RoundTripper leaves the caller's request alone: send a copy
		// with the bytes read.
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		x.request, x.requestBody = req, b
	}
	resp, err := ct.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = &replayBody{r: bytes.NewReader(b), err: err}
	if err != nil {
		// A cut answer: the test sees the error as it reads, and there is
		// no whole answer to check.
		return resp, nil
	}
	x.response, x.body, x.wire = resp, b, b
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if x.body, err = gunzip(b); err != nil {
			m.t.Errorf("%s %s answered %d: gzip body: %v", req.Method, req.URL.RequestURI(), resp.StatusCode, err)
			return resp, nil
		}
	}
	for _, c := range ct.checks {
		if err := c.check(x); err != nil {
			m.t.Errorf("%s: %s %s answered %d: %v", c.name(), req.Method, req.URL.RequestURI(), resp.StatusCode, err)
		}
	}
	return resp, nil
}

// replayBody is an answer's body read already: its bytes, then the error
// reading them ended with (io.EOF if none).
type replayBody struct {
	r   *bytes.Reader
	err error
}

func (b *replayBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.err != nil {
		err = b.err
	}
	return n, err
}

func (b *replayBody) Close() error { return nil }

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// transport returns the HTTP transport under c's checks, for tests that
// tune the connection (HTTP/1.1 only, raw encodings).
func transport(c *http.Client) *http.Transport {
	return c.Transport.(*checkedTransport).base
}

// marks is what a request carries for the checks, in its context.
type marks struct {
	t       testing.TB // the test the exchange's checks report to
	invalid bool       // sent invalid on purpose: see badRequest
}

type marksKey struct{}

func marksOf(r *http.Request) marks {
	m, _ := r.Context().Value(marksKey{}).(marks)
	return m
}

// mark changes the marks r carries, in place.
func mark(r *http.Request, change func(*marks)) {
	m := marksOf(r)
	change(&m)
	*r = *r.WithContext(context.WithValue(r.Context(), marksKey{}, m))
}

// reportTo has the checks of r's exchange report to t.
func reportTo(r *http.Request, t testing.TB) {
	mark(r, func(m *marks) { m.t = t })
}

// badRequest marks r as sent invalid on purpose (a header missing or
// malformed, a body that is not what the operation takes, no signature):
// the OpenAPI document's check leaves the request alone and checks only
// the answer, which must be the error the document gives for its status.
// Requests cloned from r afterwards carry the mark too.
func badRequest(r *http.Request) {
	mark(r, func(m *marks) { m.invalid = true })
}

// gateways are the gateways the tests run now, by the host:port of their
// TPP-facing site.
var gateways = struct {
	sync.Mutex
	byAddr map[string]*gateway
}{byAddr: map[string]*gateway{}}

// register has the checks look at exchanges with g until the test ends.
func register(t testing.TB, g *gateway) {
	gateways.Lock()
	gateways.byAddr[g.addr] = g
	gateways.Unlock()
	t.Cleanup(func() {
		gateways.Lock()
		defer gateways.Unlock()
		if gateways.byAddr[g.addr] == g {
			delete(gateways.byAddr, g.addr)
		}
	})
}

func gatewayAt(addr string) *gateway {
	gateways.Lock()
	defer gateways.Unlock()
	return gateways.byAddr[addr]
}

// fixture says that g's routes are not the product's, and why (a test
// configuration, a test double behind it): its error answers are still
// checked against the document's error body, its others not at all.
func (g *gateway) fixture(why string) *gateway {
	gateways.Lock()
	defer gateways.Unlock()
	g.fixtureWhy = why
	return g
}

func (g *gateway) fixtureReason() string {
	gateways.Lock()
	defer gateways.Unlock()
	return g.fixtureWhy
}

// recordingTB is a test whose Errorf is recorded rather than failing it,
// for TestClientChecksEveryExchange.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := strings.Join(r.errors, "\n")
	r.errors = nil
	return s
}

// TestClientChecksEveryExchange: the client every test uses (client, send)
// checks each exchange against the OpenAPI document built into obgw and
// reports what fails to the test that sent the request. The checks are
// shown to bite: a request the document refuses is reported; with a copy
// of the document the gateway's answers do not match, so is the answer,
// also to a request marked badRequest; a route the copy lacks is reported;
// a request that names no test is refused rather than left unchecked.
func TestClientChecksEveryExchange(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	c := client(nil)
	ct, ok := c.Transport.(*checkedTransport)
	if !ok {
		t.Fatalf("client's transport is %T, not the checked one", c.Transport)
	}
	var dc *documentCheck
	for _, ch := range ct.checks {
		if d, ok := ch.(*documentCheck); ok {
			dc = d
		}
	}
	if dc == nil || dc.doc != document || document == nil {
		t.Fatal("client does not check exchanges against the OpenAPI document built into obgw")
	}
	rec := &recordingTB{TB: t}
	expect := func(what string, req *http.Request, status int, want ...string) {
		t.Helper()
		if got := send(rec, c, req); got.status != status {
			t.Fatalf("%s: %d %s, want %d", what, got.status, got.body, status)
		}
		reported := rec.take()
		if len(want) == 0 && reported != "" {
			t.Errorf("%s: reported %s, want nothing", what, reported)
		}
		for _, w := range want {
			if !strings.Contains(reported, w) {
				t.Errorf("%s: reported %q, want it to say %q", what, reported, w)
			}
		}
	}

	// The document as built: a signed request and its answer conform; the
	// same request unsigned is reported, unless marked.
	signed := newRequest(rec, g, http.MethodGet, "/v1/accounts", nil)
	if err := signer(t, "tpp").Sign(signed, nil); err != nil {
		t.Fatal(err)
	}
	expect("a signed request", signed, 401)
	if !slices.ContainsFunc(ct.checks, func(ch exchangeCheck) bool { _, ok := ch.(signatureCheck); return ok }) {
		t.Fatal("client does not verify the bank's signature on the answers")
	}
	// The seal check bites: that answer with its body changed on the way,
	// and a route that does not sign answering with a Signature.
	got := send(rec, c, signed.Clone(signed.Context()))
	rec.take() // the same request again: a replay, refused and signed
	x := &exchange{gateway: g, request: signed, response: &http.Response{StatusCode: got.status, Header: got.header}, wire: got.body}
	if err := (signatureCheck{}).check(x); err != nil {
		t.Fatalf("the signed refusal as received: %v", err)
	}
	x.wire = append(bytes.Clone(got.body), ' ')
	if err := (signatureCheck{}).check(x); err == nil || !strings.Contains(err.Error(), "Digest") {
		t.Errorf("an answer whose body changed: %v, want a Digest mismatch", err)
	}
	x.request = newRequest(rec, g, http.MethodGet, "/healthz", nil)
	if err := (signatureCheck{}).check(x); err == nil || !strings.Contains(err.Error(), "does not sign") {
		t.Errorf("a signature on /healthz: %v, want it reported", err)
	}
	expect("an unsigned request", newRequest(rec, g, http.MethodGet, "/v1/accounts", nil), 400,
		"OpenAPI document: GET /v1/accounts answered 400", "request: ", `header Signature missing`)
	unsigned := newRequest(rec, g, http.MethodGet, "/v1/accounts", nil)
	badRequest(unsigned)
	expect("an unsigned request marked bad", unsigned, 400)
	expect("a path the document lacks, answered 404 RESOURCE_UNKNOWN", newRequest(rec, g, http.MethodGet, "/v1/nothing", nil), 404)

	// A copy of the document that /healthz's answer does not match, that
	// requires a header of its request, and that lacks /readyz.
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc.Components.Schemas["Health"].Value.Properties["status"].Value.Const = "DOWN"
	op := doc.Paths.Value("/healthz").Get
	op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: openapi3.NewHeaderParameter("X-Test-Required").
		WithRequired(true).WithSchema(openapi3.NewStringSchema())})
	doc.Paths.Delete("/readyz")
	altered, err := openapitest.New(doc)
	if err != nil {
		t.Fatal(err)
	}
	dc.doc = altered
	health := func(header bool) *http.Request {
		req := newRequest(rec, g, http.MethodGet, "/healthz", nil)
		if header {
			req.Header.Set("X-Test-Required", "1")
		}
		return req
	}
	expect("an answer the copy does not allow", health(true), 200, "response: ", "DOWN")
	req := health(false)
	expect("a request the copy does not allow", req, 200, "request: ", "X-Test-Required")
	badRequest(req)
	if got := rec.take(); got != "" {
		t.Fatalf("reported after the exchange: %s", got)
	}
	expect("a request marked bad: its answer", req, 200, "response: ", "DOWN")
	if strings.Contains(rec.take(), "X-Test-Required") {
		t.Error("a request marked bad was checked")
	}
	expect("a route the copy lacks", newRequest(rec, g, http.MethodGet, "/readyz", nil), 200, "the document has no path /readyz (answered 200)")

	// A request that names no test.
	if resp, err := c.Get("https://" + g.addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("a request naming no test was sent unchecked")
	} else if !strings.Contains(err.Error(), "no test to report") {
		t.Fatalf("a request naming no test: %v", err)
	}
}

// unchecked are the functions of this package that talk HTTP without
// client, each to a server that is not a gateway's TPP-facing site, with
// the reason; TestEveryClientIsChecked holds every other function to
// client.
var unchecked = map[string]string{
	"client":                                "builds the checked client",
	"reload":                                "the admin endpoint",
	"goroutines":                            "the admin endpoint",
	"batchSchedulers":                       "the admin endpoint",
	"TestSecretsStayOutOfTheAdminAPI":       "the admin endpoint's configuration",
	"TestAccessLogHoldsNoSecrets":           "the admin endpoint's metrics",
	"TestTPPContactsExport":                 "the admin endpoint's contacts export",
	"TestImportServesTheBanksData":          "the admin endpoint's import",
	"scrape":                                "the internal health listener's /metrics",
	"internalGet":                           "the internal health listener and the admin endpoint",
	"TestNoSmuggledIdentity":                "the TLS site over HTTP/1.1 with Connection and trailers, which client's HTTP/2 cannot send",
	"TestHealthByIPAddress":                 "the internal health listener, and the TLS site by IP address (421 before any route)",
	"promAPI":                               "the Prometheus server",
	"TestPrometheusEvaluatesRules":          "the Prometheus server",
	"TestSplitDeployment":                   "the split backend, directly",
	"TestNodeUpstreamVerifiesContextTokens": "the internal listener's JWKS, the Node upstream directly, and its own answer on the SCA route",
}

// TestEveryClientIsChecked: no function of this package talks HTTP but
// through client (whose every exchange with a gateway is checked), except
// those unchecked names with the server they talk to: a new test that
// builds its own client or uses net/http's defaults fails here.
func TestEveryClientIsChecked(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string]bool{"Get": true, "Post": true, "Head": true, "PostForm": true,
		"DefaultClient": true, "DefaultTransport": true, "Client": true, "Transport": true}
	fset := token.NewFileSet()
	used := map[string]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var sel *ast.SelectorExpr
				switch n := n.(type) {
				case *ast.CompositeLit: // http.Client{...}, http.Transport{...}
					sel, _ = n.Type.(*ast.SelectorExpr)
				case *ast.CallExpr: // http.Get(...)
					sel, _ = n.Fun.(*ast.SelectorExpr)
				case *ast.SelectorExpr: // http.DefaultClient
					if n.Sel.Name == "DefaultClient" || n.Sel.Name == "DefaultTransport" {
						sel = n
					}
				}
				if sel == nil {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "http" || !forbidden[sel.Sel.Name] {
					return true
				}
				if _, ok := unchecked[fn.Name.Name]; ok {
					used[fn.Name.Name] = true
					return true
				}
				t.Errorf("%s: %s uses http.%s: talk to a gateway through client (harness_test.go), which checks every exchange against the OpenAPI document, or name the function in unchecked with the server it talks to",
					fset.Position(sel.Pos()), fn.Name.Name, sel.Sel.Name)
				return true
			})
		}
	}
	for name := range unchecked {
		if !used[name] {
			t.Errorf("unchecked names %s, which talks HTTP only through client: take it out", name)
		}
	}
}
