package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/obgw/obgw/gateway"
	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/gateway/replay"
	"github.com/obgw/obgw/tppcontext"
)

const testPKI = "../../testdata/pki"

// verifyingGateway is the gateway's verification pipeline (certificate,
// signature, register, role, replay enforced, Digest) in front of a
// handler that answers 201 with the number of body bytes it got, or 400
// with the pipeline's error. It counts the requests that passed.
func verifyingGateway(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	cas, err := os.ReadFile(filepath.Join(testPKI, "qtsp-cas.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cas)
	file, err := registry.LoadFile(filepath.Join(testPKI, "registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewCache(file, registry.CacheConfig{})
	if err != nil {
		t.Fatal(err)
	}
	iss, err := tppcontext.NewIssuer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	v, err := gateway.NewVerifier(gateway.Config{Certificates: &eidas.Verifier{Roots: roots}, Registry: reg, Replay: replay.NewMemory(), Issuer: iss})
	if err != nil {
		t.Fatal(err)
	}
	policy := &gateway.Policy{RequiredRole: "PSP_PI", RequiredHeaders: []string{"TPP-Redirect-URI"}}
	var passed atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		o := v.Verify(r.Context(), &gateway.Request{HTTP: r, Body: body}, policy)
		if o.Err != nil {
			http.Error(w, o.Err.Error(), http.StatusBadRequest)
			return
		}
		if o.Decision(gateway.CheckSignature) != gateway.DecisionPass || o.Decision(gateway.CheckDigest) != gateway.DecisionPass {
			http.Error(w, "signature "+o.Decision(gateway.CheckSignature).String()+", digest "+o.Decision(gateway.CheckDigest).String(), http.StatusBadRequest)
			return
		}
		passed.Add(1)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"bodyBytes":%d}`, len(body))
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &passed
}

// TestPostWithBodyPassesTheGatewaysVerification: -X POST -body builds
// requests that the gateway's pipeline passes (signature over the Digest,
// the Digest over the bytes that arrive, replay enforced), sent once each
// by the load run and each arriving with its whole body; an answer other
// than -status 201 counts as an error.
func TestPostWithBodyPassesTheGatewaysVerification(t *testing.T) {
	srv, passed := verifyingGateway(t)
	s, err := loadSigner(testPKI, "tpp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig{target: srv.URL + "/v1/payments/domestic-norway-credit-transfers", method: http.MethodPost, status: http.StatusCreated,
		body:    []byte(`{"instructedAmount":{"currency":"NOK","amount":"250.00"},"creditorAccount":{"iban":"NO1212031020016"}}`),
		headers: http.Header{"Tpp-Redirect-Uri": {redirectURI}, "Psu-Ip-Address": {psuIPAddress}}, conns: 4}
	reqs, err := buildPool(cfg, 200, s)
	if err != nil {
		t.Fatal(err)
	}
	if r := reqs[0]; r.Method != http.MethodPost || r.Header.Get("Digest") == "" || r.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(r.Header.Get("Signature"), `headers="date digest x-request-id tpp-redirect-uri"`) {
		t.Fatalf("request %s, headers %v", r.Method, r.Header)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	p := &oncePool{reqs: reqs}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := measure(ctx, p, cfg.conns, cfg.status, roots)
	if got.errors != 0 || len(got.lat) != len(reqs) || passed.Load() != int64(len(reqs)) {
		t.Fatalf("%d sent, %d errors (first: %s), %d passed the pipeline", len(got.lat), got.errors, got.firstErr, passed.Load())
	}

	// The same pool again: every request is now a replay, refused (400 here).
	got = measure(ctx, &oncePool{reqs: reqs[:10]}, 2, cfg.status, roots)
	if got.errors != 10 || !strings.Contains(got.firstErr, "400") {
		t.Fatalf("replayed: %d errors of %d, first: %s", got.errors, len(got.lat), got.firstErr)
	}

	// A body other than the signed one fails the Digest check.
	bad := reqs[0].Clone(ctx)
	bad.Header.Set("X-Request-ID", "") // keep it from being a replay
	if err := s.Sign(bad, cfg.body); err != nil {
		t.Fatal(err)
	}
	tampered := []byte(strings.Replace(string(cfg.body), "250.00", "950.00", 1))
	bad.Body, bad.GetBody = io.NopCloser(bytes.NewReader(tampered)), nil
	got = measure(ctx, &oncePool{reqs: []*http.Request{bad}}, 1, cfg.status, roots)
	if got.errors != 1 || !strings.Contains(got.firstErr, "Digest") {
		t.Fatalf("tampered body: %d errors, first: %s", got.errors, got.firstErr)
	}
}

// TestExpectedStatus: with -status, that status and no other is a
// success; without, any 2xx.
func TestExpectedStatus(t *testing.T) {
	for _, c := range []struct {
		status, want int
		ok           bool
	}{{200, 0, true}, {201, 0, true}, {401, 0, false}, {401, 401, true}, {200, 401, false}, {201, 201, true}, {200, 201, false}} {
		if got := statusOK(c.status, c.want); got != c.ok {
			t.Errorf("statusOK(%d, %d) = %v", c.status, c.want, got)
		}
	}
}

// TestStockCaddyfileAnswersTheSameBytes: the generated Caddyfile adapts
// with stock Caddy's modules to a static_response of exactly the captured
// body and status, with the captured headers, on the captured method and
// path; bodies the Caddyfile would change are refused.
func TestStockCaddyfileAnswersTheSameBytes(t *testing.T) {
	t.Setenv("BENCH_PORT", "9443")
	answers := []answer{
		{Method: "GET", Path: "/v1/accounts/enc!!abc-_x/transactions", Status: 200,
			Header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"63"}, "Date": {"x"}, "Server": {"Caddy"}, "Cache-Control": {"no-store"}},
			Body:   []byte(`{"a":"b\u0026c","x":{"y":[1,2]},"n":"{ x }",  "t":"  x"}` + "\n\n")},
		{Method: "POST", Path: "/v1/payments/domestic-norway-credit-transfers", Status: 401,
			Header: http.Header{"Content-Type": {"application/json"}, "Vary": {"Accept", "Origin"}},
			Body:   []byte(`{"tppMessages":[]}`)},
	}
	text, err := renderStockCaddyfile(answers)
	if err != nil {
		t.Fatal(err)
	}
	adapted, warnings, err := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}.Adapt([]byte(text), nil)
	if err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %v", warnings)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []json.RawMessage `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(adapted, &cfg); err != nil {
		t.Fatal(err)
	}
	// The handlers anywhere under the site's routes, in order.
	var handlers []map[string]any
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["handler"]; ok {
				handlers = append(handlers, v)
			}
			for _, k := range []string{"routes", "handle"} {
				walk(v[k])
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, srv := range cfg.Apps.HTTP.Servers {
		for _, r := range srv.Routes {
			var v any
			_ = json.Unmarshal(r, &v)
			walk(v)
		}
	}
	var bodies []string
	var statuses []any
	var headers []any
	for _, h := range handlers {
		switch h["handler"] {
		case "static_response":
			bodies = append(bodies, h["body"].(string))
			statuses = append(statuses, h["status_code"])
		case "headers":
			headers = append(headers, h["response"])
		}
	}
	// (The Caddyfile adapter orders the routes its own way; their
	// matchers exclude each other.)
	if len(bodies) != 2 || bodies[0] == bodies[1] {
		t.Fatalf("bodies %q", bodies)
	}
	for i, b := range bodies {
		j := 0
		if b == string(answers[1].Body) {
			j = 1
		}
		if b != string(answers[j].Body) || fmt.Sprint(statuses[i]) != fmt.Sprint(answers[j].Status) {
			t.Errorf("answer %d: body %q, status %v", i, b, statuses[i])
		}
	}
	hs := fmt.Sprint(headers)
	for _, want := range []string{"Cache-Control:[no-store]", "Content-Length:[63]", "Vary:[Accept]", "Vary:[Origin]"} {
		if !strings.Contains(hs, want) {
			t.Errorf("headers %s lack %s", hs, want)
		}
	}
	if strings.Contains(hs, "Server") || strings.Contains(hs, "Date") {
		t.Errorf("headers %s repeat Date or Server", hs)
	}
	for _, w := range []string{`"method":["GET"]`, `"path":["/v1/accounts/enc!!abc-_x/transactions"]`, `"method":["POST"]`} {
		if !strings.Contains(string(adapted), w) {
			t.Errorf("adapted config lacks %s", w)
		}
	}

	for _, body := range []string{"a " + heredocMarker + " b", "a\r\nb", `{"x":"{$HOME}"}`, `{"x":"{http.request.uri}"}`, `{"x":"\{"}`} {
		if _, err := renderStockCaddyfile([]answer{{Method: "GET", Path: "/x", Status: 200, Body: []byte(body)}}); err == nil {
			t.Errorf("body %q accepted", body)
		}
	}
	if _, err := renderStockCaddyfile([]answer{{Method: "GET", Path: "/x", Status: 200, Header: http.Header{"X-A": {"{b}"}}}}); err == nil {
		t.Error("header value with a brace accepted")
	}
}

// TestSameAnswer: stock Caddy's answer matches obgw's only with the same
// status, body and headers, the server's own Date and Server apart.
func TestSameAnswer(t *testing.T) {
	want := answer{Status: 401, Body: []byte(`{"a":1}`), Header: http.Header{"Content-Type": {"application/json"}, "Date": {"d1"}, "Server": {"Caddy"}}}
	same := answer{Status: 401, Body: []byte(`{"a":1}`), Header: http.Header{"Content-Type": {"application/json"}, "Date": {"d2"}}}
	if err := sameAnswer(want, same); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]answer{
		"status":        {Status: 200, Body: same.Body, Header: same.Header},
		"body":          {Status: 401, Body: []byte(`{"a":2}`), Header: same.Header},
		"missing":       {Status: 401, Body: same.Body, Header: http.Header{}},
		"extra header":  {Status: 401, Body: same.Body, Header: http.Header{"Content-Type": {"application/json"}, "Vary": {"Origin"}}},
		"other content": {Status: 401, Body: same.Body, Header: http.Header{"Content-Type": {"text/plain"}}},
	} {
		if err := sameAnswer(want, got); err == nil {
			t.Errorf("%s: differing answer accepted", name)
		}
	}
}
