package caddymodule

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/obgw/obgw/gateway"
	"github.com/obgw/obgw/tppclient"
)

// testSignatureCheck is the handler on the shipped Caddyfile's sandbox app.
func testSignatureCheck(t *testing.T, env map[string]string, qwac string) *SignatureCheck {
	t.Helper()
	a, err := shippedApp(t, env)
	if err != nil {
		t.Fatal(err)
	}
	s := &SignatureCheck{QWAC: qwac}
	if err := s.provision(a); err != nil {
		t.Fatal(err)
	}
	return s
}

// tppSigner signs as the test PKI's TPP "tpp".
func tppSigner(t *testing.T) *tppclient.Signer {
	t.Helper()
	dir := filepath.Join("..", "testdata", "pki")
	key, err := os.ReadFile(filepath.Join(dir, "tpp-qseal-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	cert, err := os.ReadFile(filepath.Join(dir, "tpp-qseal.pem"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tppclient.NewSigner(key, cert)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// nextHandler records that the request was passed on.
type nextHandler struct{ called bool }

func (n *nextHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) error {
	n.called = true
	w.WriteHeader(http.StatusTeapot)
	return nil
}

// checkRequest sends a request signed by signer (target: what its
// (request-target) is, when signed) through s.
func checkRequest(t *testing.T, s *SignatureCheck, signer *tppclient.Signer, method, url string, body []byte) (*httptest.ResponseRecorder, *nextHandler) {
	t.Helper()
	r := httptest.NewRequest(method, url, bytes.NewReader(body))
	r.Header.Set("Accept", "application/json")
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	if signer != nil {
		if err := signer.Sign(r, body); err != nil {
			t.Fatal(err)
		}
	}
	r.RequestURI = r.URL.RequestURI()
	w := httptest.NewRecorder()
	next := new(nextHandler)
	if err := s.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	return w, next
}

// TestSignatureCheckAnswersTheAnalysis: a signed request gets 200 and
// every check; the same request id may be checked again; a
// (request-target) signed for another call verifies when the parameter
// names it.
func TestSignatureCheckAnswersTheAnalysis(t *testing.T) {
	s := testSignatureCheck(t, map[string]string{"OBGW_ENV": "sandbox"}, "")
	signer := tppSigner(t)
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"1.00"}}`)
	w, next := checkRequest(t, s, signer, "POST", "/v1/sandbox/signature-check", body)
	var a gateway.Analysis
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != 200 || next.called {
		t.Fatalf("%d %s (passed on: %v)", w.Code, w.Body, next.called)
	}
	if a.Result != "ok" || a.Body == nil || a.Body.Bytes != len(body) || !strings.HasPrefix(a.SigningString, "date: ") || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("%s", w.Body)
	}

	// (request-target) of a GET, named by the parameter.
	get := *signer
	get.SignRequestTarget = true
	r := httptest.NewRequest("GET", "/v1/accounts?withBalance=true", nil)
	if err := get.Sign(r, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		ok    bool
	}{{"?request-target=get+%2Fv1%2Faccounts%3FwithBalance%3Dtrue", true}, {"", false}} {
		c := httptest.NewRequest("POST", "/v1/sandbox/signature-check"+tt.query, nil)
		c.Header = r.Header.Clone()
		w := httptest.NewRecorder()
		if err := s.ServeHTTP(w, c, new(nextHandler)); err != nil {
			t.Fatal(err)
		}
		var a gateway.Analysis
		_ = json.Unmarshal(w.Body.Bytes(), &a)
		if (a.Result == "ok") != tt.ok || !strings.HasPrefix(a.SigningString, "(request-target): ") {
			t.Errorf("%q: %d %s", tt.query, w.Code, w.Body)
		}
	}
}

// TestSignatureCheckRefuses: other methods, a malformed request-target, a
// missing QWAC where the routes demand one; with diagnostics off the
// request is passed on, to be answered as any unknown sandbox path.
func TestSignatureCheckRefuses(t *testing.T) {
	s := testSignatureCheck(t, map[string]string{"OBGW_ENV": "sandbox"}, "")
	signer := tppSigner(t)
	for _, tt := range []struct {
		method, url string
		status      int
		code        string
	}{
		{"GET", "/v1/sandbox/signature-check", 405, "SERVICE_INVALID"},
		{"POST", "/v1/sandbox/signature-check?request-target=/v1/accounts", 400, "FORMAT_ERROR"},
		{"POST", "/v1/sandbox/signature-check?request-target=get+/v1/a%0Ab", 400, "FORMAT_ERROR"},
		{"POST", "/v1/sandbox/signature-check?request-target=get+/a&request-target=get+/b", 400, "FORMAT_ERROR"},
	} {
		w, _ := checkRequest(t, s, signer, tt.method, tt.url, nil)
		if w.Code != tt.status || !strings.Contains(w.Body.String(), `"`+tt.code+`"`) {
			t.Errorf("%s %s: %d %s", tt.method, tt.url, w.Code, w.Body)
		}
	}
	q := testSignatureCheck(t, map[string]string{"OBGW_ENV": "sandbox"}, "required")
	if w, _ := checkRequest(t, q, signer, "POST", "/v1/sandbox/signature-check", nil); w.Code != 400 || !strings.Contains(w.Body.String(), `"CERTIFICATE_MISSING"`) {
		t.Errorf("qwac required: %d %s", w.Code, w.Body)
	}
	for _, env := range []map[string]string{{"OBGW_ENV": "sandbox", "OBGW_DIAGNOSTICS": "off"}, {"OBGW_ENV": "production"}} {
		off := testSignatureCheck(t, env, "")
		if w, next := checkRequest(t, off, signer, "POST", "/v1/sandbox/signature-check", nil); !next.called || w.Code != http.StatusTeapot {
			t.Errorf("%v: answered %d %s", env, w.Code, w.Body)
		}
	}
}

// FuzzParseRequestTarget: what the parameter parser accepts is a method of
// letters and a target of visible ASCII starting with '/', the input as
// given but for the method's case.
func FuzzParseRequestTarget(f *testing.F) {
	for _, s := range []string{"get /v1/accounts?withBalance=true", "POST /api-sandbox/v1/payments/sepa-credit-transfers", "get", " /", "g\xffet /", "get /\x7f", "get  /"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		method, target, err := parseRequestTarget([]string{v})
		if err != nil {
			if len(err.Error()) > 200 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if !strings.EqualFold(method+" "+target, v) || method != strings.ToUpper(method) || target[0] != '/' || strings.ContainsAny(target, " \r\n") {
			t.Fatalf("%q: %q %q", v, method, target)
		}
	})
}

var _ caddyhttp.Handler = (*nextHandler)(nil)
