package caddymodule

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/obgw/obgw/gateway/seal"
	"github.com/obgw/obgw/tppclient"
)

func testSign(t *testing.T, max int64) (*Sign, *tppclient.ResponseVerifier) {
	t.Helper()
	certPEM, err := os.ReadFile("../testdata/pki/bank-seal.pem")
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile("../testdata/pki/bank-seal-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	s, err := seal.Load(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tppclient.NewResponseVerifier(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &Sign{seal: s, MaxResponse: max, logger: zap.NewNop()}, v
}

const testRequestID = "99391c7e-ad88-49ec-a2ad-99ddcb1f7721"

// signRequest is a request that obgw_verify authenticated, through Caddy's
// variables middleware (obgw_sign keeps a variable for handle_errors).
func signRequest(method string) *http.Request {
	r := httptest.NewRequest(method, "/v1/accounts", nil)
	r.Header.Set("X-Request-ID", testRequestID)
	ctx := context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{authenticatedVar: true})
	return r.WithContext(ctx)
}

// A refusal to a request that did not authenticate goes out as written,
// unsigned (no signature for a stranger), its X-Request-ID echoed; the
// same answer to an authenticated request is sealed.
func TestSignOnlyAuthenticated(t *testing.T) {
	s, v := testSign(t, DefaultMaxSignedResponse)
	refuse := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"CERTIFICATE_MISSING"}]}`))
		return nil
	})
	stranger := httptest.NewRequest(http.MethodGet, "/v1/accounts", nil)
	stranger.Header.Set("X-Request-ID", testRequestID)
	stranger = stranger.WithContext(context.WithValue(stranger.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
	w := httptest.NewRecorder()
	if err := s.ServeHTTP(w, stranger, refuse); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "CERTIFICATE_MISSING") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, k := range []string{"Signature", "Digest", seal.CertificateHeader} {
		if w.Header().Get(k) != "" {
			t.Errorf("the refusal of a stranger carries %s", k)
		}
	}
	if w.Header().Get("X-Request-Id") != testRequestID || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
		t.Errorf("headers %v", w.Header())
	}
	w = httptest.NewRecorder()
	if err := s.ServeHTTP(w, signRequest(http.MethodGet), refuse); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(w.Header(), w.Body.Bytes(), testRequestID); err != nil {
		t.Fatalf("the refusal of an authenticated request: %v", err)
	}
}

// The answer is held, then sent whole with the seal: written in pieces,
// flushed in between, with a Content-Length that no longer holds.
func TestSignHoldsTheAnswerAndSeals(t *testing.T) {
	s, v := testSign(t, DefaultMaxSignedResponse)
	w := httptest.NewRecorder()
	err := s.ServeHTTP(w, signRequest(http.MethodGet), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "3")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"a":`))
		if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
		if w.(*sealRecorder).ResponseWriterWrapper.ResponseWriter.(*httptest.ResponseRecorder).Flushed {
			t.Error("a flush reached the client before the signature")
		}
		_, _ = w.Write([]byte(`1}`))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusCreated || w.Body.String() != `{"a":1}` || w.Header().Get("Content-Length") != "7" {
		t.Fatalf("%d %q %v", w.Code, w.Body, w.Header())
	}
	if w.Header().Get("X-Request-Id") != testRequestID {
		t.Fatalf("X-Request-ID not echoed: %v", w.Header())
	}
	if _, err := v.Verify(w.Header(), w.Body.Bytes(), testRequestID); err != nil {
		t.Fatal(err)
	}
}

// A body past max_response is not sent unsigned: a signed 503 instead.
func TestSignRefusesTooLargeAnswers(t *testing.T) {
	s, v := testSign(t, 10)
	w := httptest.NewRecorder()
	err := s.ServeHTTP(w, signRequest(http.MethodGet), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Repeat("x", 11)))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "too large to sign") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if _, err := v.Verify(w.Header(), w.Body.Bytes(), testRequestID); err != nil {
		t.Fatal(err)
	}
}

// A failed handler's error goes to handle_errors unanswered; there,
// obgw_sign signs it because the route signed, and lets the errors of
// other routes pass unsigned.
func TestSignInHandleErrors(t *testing.T) {
	s, v := testSign(t, DefaultMaxSignedResponse)
	failure := errors.New("upstream down")
	r := signRequest(http.MethodGet)
	w := httptest.NewRecorder()
	if err := s.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return failure })); err != failure {
		t.Fatalf("the handler's error %v, want it returned", err)
	}
	if w.Body.Len() != 0 || w.Header().Get("Signature") != "" {
		t.Fatalf("answered before handle_errors: %v %q", w.Header(), w.Body)
	}
	answer := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"tppMessages":[]}`))
		return nil
	})
	inErrors := func(r *http.Request) *http.Request {
		return r.WithContext(context.WithValue(r.Context(), caddyhttp.ErrorCtxKey, failure))
	}
	w = httptest.NewRecorder()
	if err := s.ServeHTTP(w, inErrors(r), answer); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(w.Header(), w.Body.Bytes(), testRequestID); err != nil {
		t.Fatalf("the error of a signing route: %v", err)
	}
	w = httptest.NewRecorder()
	if err := s.ServeHTTP(w, inErrors(signRequest(http.MethodGet)), answer); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Signature") != "" {
		t.Fatalf("the error of a route that does not sign: %d %v", w.Code, w.Header())
	}
}

// A HEAD answer (no body reaches the client) keeps its Content-Length.
func TestSignHead(t *testing.T) {
	s, _ := testSign(t, DefaultMaxSignedResponse)
	w := httptest.NewRecorder()
	err := s.ServeHTTP(w, signRequest(http.MethodHead), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Length", "42")
		w.WriteHeader(http.StatusOK)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if w.Header().Get("Content-Length") != "42" || w.Header().Get("Signature") == "" {
		t.Fatalf("%v", w.Header())
	}
}

// A request without one UUID X-Request-ID gets none echoed, and the
// signature covers date and digest.
func TestSignEchoesOnlyAUUID(t *testing.T) {
	s, v := testSign(t, DefaultMaxSignedResponse)
	r := signRequest(http.MethodGet)
	r.Header.Set("X-Request-ID", "not-a-uuid\x7f")
	w := httptest.NewRecorder()
	if err := s.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if w.Header().Get("X-Request-Id") != "" || !strings.Contains(w.Header().Get("Signature"), `headers="date digest"`) {
		t.Fatalf("%v", w.Header())
	}
	if _, err := v.Verify(w.Header(), w.Body.Bytes(), ""); err != nil {
		t.Fatal(err)
	}
}
