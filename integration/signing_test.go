package integration

import (
	"compress/gzip"
	"encoding/pem"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppclient"
)

// bankSeal verifies the bank's response signatures as a TPP does: against
// the test PKI's bank seal certificate, pinned.
func bankSeal(t testing.TB) *tppclient.ResponseVerifier {
	t.Helper()
	v, err := tppclient.NewResponseVerifier(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pki.BankSeal.Certificate.Raw}))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// verifySigned fails t unless r is signed by the bank for the request with
// X-Request-ID requestID.
func verifySigned(t *testing.T, what string, r response, requestID string) {
	t.Helper()
	if _, err := bankSeal(t).Verify(r.header, r.body, requestID); err != nil {
		t.Fatalf("%s (%d): %v", what, r.status, err)
	}
}

// TestResponsesAreSigned: with the shipped Caddyfile, the answers of
// account information and payment initiation are signed with the bank's
// seal, refusals of the gateway included, on the in-process backend and
// in the split deployment (the gateway signs); the other routes are not.
func TestResponsesAreSigned(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	s := &tppSession{t: t, g: g, c: client(nil), tpp: "tpp", sid: uuid.NewString()}

	// The backend's answer: 401 with an SCA link.
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, s.c, req)
	if got.status != 401 {
		t.Fatalf("accounts without consent: %d %s", got.status, got.body)
	}
	verifySigned(t, "accounts without consent", got, req.Header.Get("X-Request-ID"))

	// A consent created (201).
	req = newRequest(t, g, http.MethodPost, "/v1/bank-offered-consents", nil)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	req.Header.Set("TPP-Session-ID", s.sid)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got = send(t, s.c, req)
	if got.status != 201 {
		t.Fatalf("consent: %d %s", got.status, got.body)
	}
	verifySigned(t, "consent created", got, req.Header.Get("X-Request-ID"))

	// The gateway's refusal of an unsigned request.
	req = newRequest(t, g, http.MethodGet, "/v1/payments/sepa-credit-transfers/x/status", nil)
	badRequest(req)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	got = send(t, s.c, req)
	if got.status != 400 || got.err.code() != "CERTIFICATE_MISSING" {
		t.Fatalf("unsigned: %d %s", got.status, got.body)
	}
	verifySigned(t, "refusal", got, req.Header.Get("X-Request-ID"))
	if got.header.Get("X-Request-Id") != req.Header.Get("X-Request-ID") {
		t.Fatalf("X-Request-ID not echoed: %v", got.header)
	}

	// A body altered on the way fails the TPP's check.
	if _, err := bankSeal(t).Verify(got.header, append(got.body, ' '), req.Header.Get("X-Request-ID")); err == nil {
		t.Fatal("an altered body verified")
	}

	sig := got.header.Get("Signature")
	sig = sig[strings.Index(sig, `signature="`)+11:][:40]
	cert := got.header.Get("ASPSP-Signature-Certificate")[:60]

	// Not signed: health, the OpenAPI document.
	for _, path := range []string{"/health", "/v1/openapi.json"} {
		req = newRequest(t, g, http.MethodGet, path, nil)
		got = send(t, s.c, req)
		if got.header.Get("Signature") != "" {
			t.Fatalf("%s is signed: %v", path, got.header)
		}
	}

	// The access log (written by now for the refusal above) keeps neither
	// the signature nor the certificate.
	if logs := g.logs(); !strings.Contains(logs, `"status":400`) || strings.Contains(logs, sig) || strings.Contains(logs, cert) {
		t.Fatal("the access log holds the response signature or the seal certificate, or not the refusal")
	}
}

// TestSignedOverTheBytesSent: the signature's Digest is of the bytes on
// the wire: after the x-accept-fix rewrite into the legacy shape and after
// gzip inside the signed route; and handle_errors signs the errors of a
// signed route (upstream down).
func TestSignedOverTheBytesSent(t *testing.T) {
	g, _ := startEcho(t)
	c := client(nil)
	transport(c).DisableCompression = true // see the bytes sent

	req := newRequest(t, g, http.MethodGet, "/v1/fixes-signed", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, c, req)
	if got.status != 200 || got.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("%d %v", got.status, got.header)
	}
	verifySigned(t, "rewritten and compressed", got, req.Header.Get("X-Request-ID"))
	zr, err := gzip.NewReader(strings.NewReader(string(got.body)))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !strings.Contains(string(plain), `"amount":18000.50`) {
		t.Fatalf("not the legacy shape: %s", plain)
	}

	req = newRequest(t, g, http.MethodGet, "/v1/down-signed", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got = send(t, c, req)
	if got.status < 500 {
		t.Fatalf("upstream down: %d %s", got.status, got.body)
	}
	verifySigned(t, "handle_errors", got, req.Header.Get("X-Request-ID"))

	// The errors of a route that does not sign stay unsigned.
	req = newRequest(t, g, http.MethodGet, "/v1/down", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got = send(t, c, req); got.status < 500 || got.header.Get("Signature") != "" {
		t.Fatalf("unsigned route's error: %d %v", got.status, got.header)
	}
}
