package integration

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/obgw/obgw/tppclient"
)

// The shipped Caddyfile's signature diagnostics, over real TLS with real
// signed requests: a sandbox names the precise cause of a signature or
// Digest failure and shows the signing string it built; production keeps
// the plain texts and does not route the signature check.

// diagnosticsPSUID is the PSU-ID of the requests below: no answer may
// hold it whole.
const diagnosticsPSUID = "5d3c1f0e-7b2a-4c9d-8e6f-1a2b3c4d5e6f"

// psuAddedAfterSigning is a GET /v1/accounts whose PSU-ID was set after
// the request was signed: the Signature's headers list lacks psu-id.
func psuAddedAfterSigning(t *testing.T, g *gateway) *http.Request {
	t.Helper()
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", "diag-1")
	if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("PSU-ID", diagnosticsPSUID)
	return req
}

// redirectChangedAfterSigning is a GET /v1/accounts whose
// TPP-Redirect-URI a proxy changed after it was signed.
func redirectChangedAfterSigning(t *testing.T, g *gateway) *http.Request {
	t.Helper()
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("PSU-ID", diagnosticsPSUID)
	if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=2")
	return req
}

// customerBody is a sandbox customer to create.
var customerBody = []byte(`{"customerNumber":"01019912345","name":"Test Testperson","type":"private"}`)

// bodyChangedAfterSigning is a POST /v1/sandbox/customers whose body a
// client re-serialised after it computed the Digest.
func bodyChangedAfterSigning(t *testing.T, g *gateway) *http.Request {
	t.Helper()
	req := newRequest(t, g, http.MethodPost, "/v1/sandbox/customers", customerBody)
	req.Header.Del("TPP-Redirect-URI")
	if err := g.signer(t, "tpp").Sign(req, customerBody); err != nil {
		t.Fatal(err)
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(prettyCustomer)), int64(len(prettyCustomer))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(prettyCustomer)), nil }
	return req
}

// prettyCustomer is customerBody as a client re-serialised it.
var prettyCustomer = []byte(strings.ReplaceAll(string(customerBody), ",", ", "))

// TestSignatureDiagnostics: the same wrongly signed requests get the
// precise cause in the sandbox and the plain text in production (and in
// a sandbox with OBGW_DIAGNOSTICS=off).
func TestSignatureDiagnostics(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  []string
		diag bool
	}{
		{"sandbox", nil, true},
		{"sandbox-off", []string{"OBGW_DIAGNOSTICS=off"}, false},
		{"production", append([]string{"OBGW_ENV=production"}, productionIdPEnv()[1:]...), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := startGateway(t, "Caddyfile", append(databaseEnv(t, "sqlite"), tt.env...)...)
			c := client(nil)

			got := send(t, c, psuAddedAfterSigning(t, g))
			checkDiagnostic(t, "psu-id after signing", got, tt.diag, "SIGNATURE_INVALID",
				"the Signature headers list must include psu-id because the request has a PSU-ID header",
				[]string{`the Signature headers list "date x-request-id tpp-redirect-uri" lacks psu-id (the request has a PSU-ID header); sign headers="date x-request-id tpp-redirect-uri psu-id"`},
				[]string{"the signing string the gateway built (3 lines", "\ndate: ", "\ntpp-redirect-uri: https://tpp.example.no/cb?state=1"})

			got = send(t, c, redirectChangedAfterSigning(t, g))
			checkDiagnostic(t, "redirect changed", got, tt.diag, "SIGNATURE_INVALID",
				"the signature does not verify with the key of TPP-Signature-Certificate over the headers listed",
				[]string{"it was made with this certificate's key, but over another string than the signing string the gateway built (next message)", "SHA-256 of the string you signed: "},
				[]string{"\ntpp-redirect-uri: https://tpp.example.no/cb?state=2", "\npsu-id: 5d3c…(36 bytes)"})

			if tt.name != "production" { // production has no mock-data routes to sign for
				got = send(t, c, bodyChangedAfterSigning(t, g))
				checkDiagnostic(t, "body changed", got, tt.diag, "FORMAT_ERROR",
					"Digest SHA-256 does not match the request body; hash the exact body bytes sent",
					[]string{"Digest SHA-256 does not match the request body: the gateway computed SHA-256=", "over the " + strconv.Itoa(len(prettyCustomer)) + " bytes received, the header claims SHA-256="}, nil)
			}
		})
	}
}

// checkDiagnostic holds an answer to the diagnostic texts (want in the
// first message, signing in the ones that follow) or, without
// diagnostics, to the one plain message.
func checkDiagnostic(t *testing.T, what string, got response, diag bool, code, plain string, want, signing []string) {
	t.Helper()
	if got.status != 400 || len(got.err.TPPMessages) == 0 || got.err.TPPMessages[0].Code != code {
		t.Fatalf("%s: %d %s", what, got.status, got.body)
	}
	if strings.Contains(string(got.body), diagnosticsPSUID) {
		t.Errorf("%s: the answer holds the PSU-ID: %s", what, got.body)
	}
	first := got.err.TPPMessages[0].Text
	if !diag {
		if len(got.err.TPPMessages) != 1 || first != plain {
			t.Errorf("%s: without diagnostics\n got %s\nwant the one text %q", what, got.body, plain)
		}
		return
	}
	t.Logf("%s: %s", what, got.body)
	for _, w := range want {
		if !strings.Contains(first, w) {
			t.Errorf("%s: %q\nlacks %q", what, first, w)
		}
	}
	rest := ""
	for _, m := range got.err.TPPMessages[1:] {
		rest += m.Text
		if m.Code != code || m.Path != "Signature" || len(m.Text) > 500 {
			t.Errorf("%s: further message %+v", what, m)
		}
	}
	for _, w := range signing {
		if !strings.Contains(rest, w) {
			t.Errorf("%s: the signing string\n%s\nlacks %q", what, rest, w)
		}
	}
}

// analysis is the signature check's answer as a TPP reads it.
type analysis struct {
	Result string `json:"result"`
	Checks []struct {
		Check, Status, Code, Path, Text string
	} `json:"checks"`
	SigningString       string `json:"signingString"`
	SigningStringSHA256 string `json:"signingStringSha256"`
	Body                *struct {
		Bytes                         int
		Digest, DigestSHA512, Claimed string
	} `json:"body"`
}

func (a analysis) check(name string) (status, text string) {
	for _, c := range a.Checks {
		if c.Check == name {
			return c.Status, c.Text
		}
	}
	return "", ""
}

// TestSignatureCheckEndpoint: in the sandbox, POST
// /v1/sandbox/signature-check answers a signed request's analysis and
// records nothing (the same signed headers then create a customer); a
// faulty one gets each check's cause; in production the path is a sandbox
// path like any other, 404.
func TestSignatureCheckEndpoint(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	c := client(nil)

	req := newRequest(t, g, http.MethodPost, "/api-sandbox/v1/sandbox/signature-check", customerBody)
	req.Header.Del("TPP-Redirect-URI")
	req.Header.Set("PSU-ID", diagnosticsPSUID)
	if err := g.signer(t, "tpp").Sign(req, customerBody); err != nil {
		t.Fatal(err)
	}
	signed := req.Header.Clone()
	got := send(t, c, req)
	var a analysis
	if err := json.Unmarshal(got.body, &a); err != nil || got.status != 200 {
		t.Fatalf("%d %s", got.status, got.body)
	}
	t.Logf("signature check: %s", got.body)
	for _, name := range []string{"hygiene", "date", "certificate", "signatureHeader", "keyId", "signedHeaders", "signature", "registry", "digest", "body"} {
		if s, text := a.check(name); s != "ok" {
			t.Errorf("%s: %s %s", name, s, text)
		}
	}
	if s, _ := a.check("replay"); a.Result != "ok" || s != "skipped" || a.Body == nil || a.Body.Bytes != len(customerBody) ||
		a.Body.Digest != signed.Get("Digest") || !strings.Contains(a.SigningString, "\npsu-id: 5d3c…(36 bytes)") ||
		strings.Contains(string(got.body), diagnosticsPSUID) {
		t.Errorf("analysis: %s", got.body)
	}

	// The X-Request-ID was not used up: the same signed request, sent for
	// real, creates the customer.
	real := newRequest(t, g, http.MethodPost, "/v1/sandbox/customers", customerBody)
	real.Header = signed
	if got := send(t, c, real); got.status != 201 {
		t.Fatalf("the real call after the check: %d %s", got.status, got.body)
	}

	// A keyId with the serial in decimal, and psu-id not signed.
	s := signer(t, "tpp")
	cert := pki.TPP("tpp").Seal.Certificate
	issuer, _ := tppclient.RFC2253(cert.RawIssuer)
	s.KeyID = "SN=" + cert.SerialNumber.String() + ",CA=" + issuer
	req = newRequest(t, g, http.MethodPost, "/v1/sandbox/signature-check", nil)
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("PSU-ID", diagnosticsPSUID)
	got = send(t, c, req)
	a = analysis{}
	if err := json.Unmarshal(got.body, &a); err != nil || got.status != 200 || a.Result != "failed" {
		t.Fatalf("%d %s", got.status, got.body)
	}
	t.Logf("signature check of a faulty request: %s", got.body)
	for name, want := range map[string]string{
		"keyId":         "(you wrote the serial number in decimal; write it in hex); the keyId of TPP-Signature-Certificate is SN=" + strings.ToUpper(cert.SerialNumber.Text(16)),
		"signedHeaders": "lacks psu-id (the request has a PSU-ID header)",
		"signature":     "",
		"registry":      "looked up only for a request whose certificate and signature pass",
	} {
		if _, text := a.check(name); !strings.Contains(text, want) {
			t.Errorf("%s: %q lacks %q", name, text, want)
		}
	}
	if st, _ := a.check("signature"); st != "ok" {
		t.Errorf("the signature itself verifies: %s", got.body)
	}

	// A trusted certificate with a signature that does not verify, and a
	// 1 MiB body announced and never sent: the check answers at once,
	// without the body (issue 34, 1: a body is read, and counted against
	// the TPP's share, only once the signature verifies).
	pr, pw := io.Pipe()
	defer pw.Close()
	req = newRequest(t, g, http.MethodPost, "/v1/sandbox/signature-check", nil)
	req.Header.Set("Content-Type", "application/json")
	if err := g.signer(t, "tpp").Sign(req, bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", uuid.NewString()) // after signing
	req.Body, req.ContentLength = pr, 1<<20
	badRequest(req)
	began := time.Now()
	got = send(t, c, req)
	a = analysis{}
	if err := json.Unmarshal(got.body, &a); err != nil || got.status != 200 || a.Result != "failed" || a.Body != nil {
		t.Fatalf("a wrong signature with a body that never comes: %d %s", got.status, got.body)
	}
	if st, text := a.check("digest"); st != "skipped" || !strings.Contains(text, "only once the certificate and the signature pass") || time.Since(began) > 5*time.Second {
		t.Errorf("digest %s %q after %v", st, text, time.Since(began))
	}

	// Unsigned: every check answers, none executes.
	req = newRequest(t, g, http.MethodPost, "/v1/sandbox/signature-check", nil)
	req.Header.Set("X-Request-ID", uuid.NewString())
	badRequest(req) // no Date: the document's request is not this
	got = send(t, c, req)
	a = analysis{}
	if err := json.Unmarshal(got.body, &a); err != nil || got.status != 200 || a.Result != "failed" {
		t.Fatalf("unsigned: %d %s", got.status, got.body)
	}
	if st, text := a.check("certificate"); st != "failed" || !strings.Contains(text, "TPP-Signature-Certificate is missing") {
		t.Errorf("unsigned: %s", got.body)
	}

	// Other methods are refused.
	req = newRequest(t, g, http.MethodGet, "/v1/sandbox/signature-check", nil)
	if err := g.signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, c, req); got.status != 405 || got.err.code() != "SERVICE_INVALID" {
		t.Errorf("GET: %d %s", got.status, got.body)
	}

	t.Run("production", func(t *testing.T) {
		g := startGateway(t, "Caddyfile", append(append(databaseEnv(t, "sqlite"), "OBGW_ENV=production"), productionIdPEnv()[1:]...)...)
		req := newRequest(t, g, http.MethodPost, "/v1/sandbox/signature-check", customerBody)
		req.Header.Del("TPP-Redirect-URI")
		if err := g.signer(t, "tpp").Sign(req, customerBody); err != nil {
			t.Fatal(err)
		}
		if got := send(t, client(nil), req); got.status != 404 || got.err.code() != "RESOURCE_UNKNOWN" {
			t.Fatalf("production: %d %s", got.status, got.body)
		}
	})
}
