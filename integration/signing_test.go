package integration

import (
	"compress/gzip"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/gateway/hygiene"
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

// signatureCheck is the exchangeCheck of the bank's seal (see
// contract_test.go): on a gateway running the product's routes, an
// answer of a route that signs is verified as a TPP verifies it, and an
// answer of any other route must come unsigned. A fixture gateway's
// routes are its own and are not checked.
type signatureCheck struct{}

func (signatureCheck) name() string { return "bank signature" }

// sealVerifier is the TPP's verifier of the bank's seals, built once: the
// test PKI's RSA seal (the sandbox default) and its P-256 one, as a TPP
// trusts both seals of a bank that publishes two, and the production
// deployments' (productionPKI).
var sealVerifier = sync.OnceValues(func() (*tppclient.ResponseVerifier, error) {
	return tppclient.NewResponseVerifier(append(
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pki.BankSeal.Certificate.Raw}),
		append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pki.BankSealEC.Certificate.Raw}),
			pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: productionPKI.BankSeal.Certificate.Raw})...)...))
})

func (signatureCheck) check(x *exchange) error {
	if x.gateway.fixtureReason() != "" {
		return nil
	}
	h := x.response.Header
	if !signedRoute(x.gateway, x.request.URL.Path) {
		for _, k := range []string{"Signature", "Digest", "ASPSP-Signature-Certificate"} {
			if h.Get(k) != "" {
				return fmt.Errorf("a route that does not sign answered with %s", k)
			}
		}
		return nil
	}
	// A refusal before the request authenticated goes out unsigned: its
	// code is one of the checks before and of the signature (the exact
	// cases: TestStrangersCostNoSignature).
	// So is a 503 of the certificate check when the EU trusted lists that
	// decide it are not loaded or stale (TestTrustedListsInProduction).
	if h.Get("Signature") == "" && x.response.StatusCode >= 400 && x.response.StatusCode < 500 || x.response.StatusCode == http.StatusServiceUnavailable {
		var e struct {
			TPPMessages []struct{ Code, Text string } `json:"tppMessages"`
		}
		preAuth := func() bool {
			m := e.TPPMessages[0]
			if x.response.StatusCode == http.StatusServiceUnavailable {
				return m.Code == "SERVICE_UNAVAILABLE" && strings.Contains(m.Text, "trusted list")
			}
			return preAuthenticationCodes[m.Code]
		}
		if h.Get("Signature") == "" && json.Unmarshal(x.wire, &e) == nil && len(e.TPPMessages) > 0 && preAuth() {
			if h.Get("Digest") != "" || h.Get("ASPSP-Signature-Certificate") != "" {
				return errors.New("an unsigned refusal carries Digest or ASPSP-Signature-Certificate")
			}
			return nil
		}
	}
	if x.request.Method == http.MethodHead {
		// A HEAD answer has no body for its Digest (it is the GET's); its
		// signature over the headers is what can be checked.
		if h.Get("Signature") == "" || h.Get("Digest") == "" {
			return errors.New("a HEAD answer of a route that signs came without Signature or Digest")
		}
		return nil
	}
	v, err := sealVerifier()
	if err != nil {
		return err
	}
	// The gateway echoes and signs a request's one X-Request-ID when it is
	// a UUID; an answer to a request without one is signed over date and
	// digest.
	requestID := ""
	if ids := x.request.Header.Values("X-Request-ID"); len(ids) == 1 && hygiene.IsUUID(ids[0]) {
		requestID = ids[0]
	}
	if _, err := v.Verify(h, x.wire, requestID); err != nil {
		return fmt.Errorf("the answer of a route that signs does not verify: %w", err)
	}
	return nil
}

// preAuthenticationCodes are the codes of the gateway's checks up to the
// signature's (hygiene, date, certificate, signature), whose refusals are
// not sealed.
var preAuthenticationCodes = map[string]bool{
	"FORMAT_ERROR": true, "REQUESTED_FORMATS_INVALID": true, "TIMESTAMP_INVALID": true,
	"CERTIFICATE_MISSING": true, "CERTIFICATE_INVALID": true, "CERTIFICATE_EXPIRED": true,
	"CERTIFICATE_REVOKED": true, "SIGNATURE_MISSING": true, "SIGNATURE_INVALID": true,
}

// signedPrefixes are the paths the shipped policies sign (ais.caddy,
// pis.caddy, baskets.caddy: the routes with import sign), each as itself
// and with its subpaths.
var signedPrefixes = []string{
	"/v1/accounts", "/v1/card-accounts", "/v1/bank-offered-consents", "/v1/consents",
	"/v1/agreements", "/v1/user", "/v1/payments/", "/v1/periodic-payments/",
	"/v1/bulk-payments/", "/v1/signing-baskets",
}

// signedRoute reports whether the shipped Caddyfile routes p, as the
// request asked it of g, to a route that signs: after the base path is
// stripped, matched as Caddy's path matcher does (case-insensitive, on
// the cleaned path).
func signedRoute(g *gateway, p string) bool {
	bp := g.basePath
	if bp == "" {
		bp = "/api-sandbox"
	}
	p = strings.ToLower(path.Clean(p))
	if rest, ok := strings.CutPrefix(p, strings.ToLower(bp)+"/v1/"); ok {
		p = "/v1/" + rest
	}
	for _, pre := range signedPrefixes {
		if strings.HasSuffix(pre, "/") {
			if strings.HasPrefix(p, pre) {
				return true
			}
			continue
		}
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// TestECDSASealedResponses: with a P-256 QSealC configured
// (OBGW_BANK_SEAL_CERT, OBGW_BANK_SEAL_KEY), the answers are signed
// ecdsa-sha256 with it, and verify as a TPP that pins that certificate
// verifies them (every answer of this test also passes signatureCheck);
// a TPP pinning only the RSA seal refuses them.
func TestECDSASealedResponses(t *testing.T) {
	g := startGateway(t, "Caddyfile", "OBGW_BANK_SEAL_CERT=testdata/pki/bank-seal-ec.pem", "OBGW_BANK_SEAL_KEY=testdata/pki/bank-seal-ec-key.pem")
	c := client(nil)
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	got := send(t, c, req)
	if got.status != 401 || !strings.Contains(got.header.Get("Signature"), `algorithm="ecdsa-sha256"`) {
		t.Fatalf("accounts without consent: %d %v", got.status, got.header)
	}
	ec, err := tppclient.NewResponseVerifier(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pki.BankSealEC.Certificate.Raw}))
	if err != nil {
		t.Fatal(err)
	}
	if cert, err := ec.Verify(got.header, got.body, req.Header.Get("X-Request-ID")); err != nil || cert.Subject.CommonName != "Test Bank AS" {
		t.Fatalf("the P-256 seal's answer: %v", err)
	}
	if _, err := bankSeal(t).Verify(got.header, got.body, req.Header.Get("X-Request-ID")); err == nil || !strings.Contains(err.Error(), "names no trusted bank certificate") {
		t.Fatalf("a TPP pinning only the RSA seal: %v", err)
	}
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
// seal, the gateway's refusals of authenticated requests included, on the
// in-process backend and in the split deployment (the gateway signs); the
// other routes are not.
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

	// The gateway's refusal of an authenticated request: the AISP's signed
	// payment, refused for its role.
	req = newRequest(t, g, http.MethodPost, "/v1/payments/sepa-credit-transfers", paymentBody)
	req.Header.Set("PSU-IP-Address", "192.0.2.10")
	if err := signer(t, "aisp").Sign(req, paymentBody); err != nil {
		t.Fatal(err)
	}
	got = send(t, s.c, req)
	if got.status != 401 || got.err.code() != "ROLE_INVALID" {
		t.Fatalf("the AISP's payment: %d %s", got.status, got.body)
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
	if logs := g.logs(); !strings.Contains(logs, `"status":401`) || strings.Contains(logs, sig) || strings.Contains(logs, cert) {
		t.Fatal("the access log holds the response signature or the seal certificate, or not the refusal")
	}
}

// TestStrangersCostNoSignature: the refusal of a request that did not
// authenticate (up to and including the signature check) goes out
// unsigned, so that a client without credentials costs the bank no
// signature; every refusal after the signature verified, and every answer
// of the backend, is sealed.
func TestStrangersCostNoSignature(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	c := client(nil)
	cases := []struct {
		name   string
		tpp    string
		method string
		body   []byte
		change func(*http.Request)
		code   string
		sealed bool
		bad    bool // against the OpenAPI document
	}{
		{name: "no certificate, no signature", code: "CERTIFICATE_MISSING"},
		{name: "a QSealC, no signature", tpp: "tpp", change: func(r *http.Request) { r.Header.Del("Signature") }, code: "SIGNATURE_MISSING"},
		{name: "a signature that does not verify", tpp: "tpp", change: func(r *http.Request) { r.Header.Set("X-Request-ID", uuid.NewString()) }, code: "SIGNATURE_INVALID"},
		{name: "a certificate of an untrusted CA", tpp: "untrusted", code: "CERTIFICATE_INVALID"},
		{name: "a malformed header", tpp: "tpp", change: func(r *http.Request) { r.Header.Set("PSU-IP-Address", "300.1.1.1") }, code: "FORMAT_ERROR"},
		{name: "a TPP the register withdrew", tpp: "withdrawn", code: "CERTIFICATE_BLOCKED", sealed: true},
		{name: "an AISP initiating a payment", tpp: "aisp", method: http.MethodPost, body: paymentBody, code: "ROLE_INVALID", sealed: true},
		{name: "a signed body that breaks the JSON rules", tpp: "tpp", method: http.MethodPost, body: []byte(`{"a":1,"a":2}`), code: "FORMAT_ERROR", sealed: true, bad: true},
		{name: "the backend's refusal", tpp: "tpp", code: "CONSENT_INVALID", sealed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method, path := http.MethodGet, "/v1/accounts"
			if tc.method != "" {
				method, path = tc.method, "/v1/payments/sepa-credit-transfers"
			}
			req := newRequest(t, g, method, path, tc.body)
			req.Header.Set("PSU-IP-Address", "192.0.2.10")
			if tc.tpp != "" {
				if err := signer(t, tc.tpp).Sign(req, tc.body); err != nil {
					t.Fatal(err)
				}
			} else {
				req.Header.Set("X-Request-ID", uuid.NewString())
				req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
			}
			if tc.change != nil {
				tc.change(req)
			}
			if !tc.sealed || tc.bad {
				badRequest(req)
			}
			got := send(t, c, req)
			if got.status < 400 || len(got.err.TPPMessages) == 0 || got.err.TPPMessages[0].Code != tc.code {
				t.Fatalf("got %d %s, want %s: %s", got.status, got.err.code(), tc.code, got.body)
			}
			if got.header.Get("X-Request-Id") != req.Header.Get("X-Request-ID") {
				t.Errorf("X-Request-ID not echoed: %v", got.header)
			}
			if !tc.sealed {
				for _, k := range []string{"Signature", "Digest", "ASPSP-Signature-Certificate"} {
					if got.header.Get(k) != "" {
						t.Fatalf("the refusal of a request that did not authenticate carries %s", k)
					}
				}
				return
			}
			verifySigned(t, tc.name, got, req.Header.Get("X-Request-ID"))
		})
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
