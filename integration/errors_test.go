package integration

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// caseSpec is one request against the shipped Caddyfile and the error it
// must get.
type caseSpec struct {
	name   string
	tpp    string // test TPP id; default "tpp"
	method string
	path   string
	body   string
	// before runs on the request before signing; after runs after it.
	before, after func(t *testing.T, r *http.Request)
	// signerNow shifts the signer's clock.
	signerNow time.Duration
	unsigned  bool
	// bad: the request breaks the OpenAPI document on purpose
	// (badRequest), so only its answer is checked against it.
	bad    bool
	status int
	code   string
	text   string // substring of the error text, case-insensitive
}

// rawSign replaces the Signature header with one made over exactly the
// listed headers, independently of tppclient, for cases tppclient will not
// produce (missing coverage, other algorithms).
func rawSign(t *testing.T, r *http.Request, tpp string, headers []string, algorithm string) {
	t.Helper()
	kp := pki.TPP(tpp).Seal
	var lines []string
	for _, h := range headers {
		if h == "(request-target)" {
			lines = append(lines, "(request-target): "+strings.ToLower(r.Method)+" "+r.URL.RequestURI())
			continue
		}
		lines = append(lines, h+": "+r.Header.Get(h))
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	sig, err := rsa.SignPKCS1v15(rand.Reader, kp.Key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", `keyId="`+kp.KeyID()+`",algorithm="`+algorithm+`",headers="`+strings.Join(headers, " ")+`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
}

func TestGatewayErrorTable(t *testing.T) {
	// The contract's texts, one message each, as production answers them:
	// a sandbox's diagnostics (on there by default; TestSignatureDiagnostics)
	// name the cause and add the signing string in further messages.
	g := startGateway(t, "Caddyfile", "OBGW_DIAGNOSTICS=off")
	c := client(nil)
	cases := []caseSpec{
		{name: "verified AIS request reaches the consent check", path: "/v1/accounts", status: 401, code: "CONSENT_INVALID"},
		{name: "signature missing", bad: true, path: "/v1/accounts", after: func(t *testing.T, r *http.Request) { r.Header.Del("Signature") }, status: 400, code: "SIGNATURE_MISSING"},
		{name: "signature malformed", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) { r.Header.Set("Signature", `keyId=nope`) }, status: 400, code: "SIGNATURE_INVALID"},
		{name: "signature does not verify (PSU-ID changed after signing)", path: "/v1/accounts",
			before: func(t *testing.T, r *http.Request) { r.Header.Set("PSU-ID", uuid.NewString()) },
			after:  func(t *testing.T, r *http.Request) { r.Header.Set("PSU-ID", uuid.NewString()) }, status: 400, code: "SIGNATURE_INVALID"},
		{name: "keyId names another certificate", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			other := pki.TPP("aisp").Seal.KeyID()
			sig := r.Header.Get("Signature")
			i := strings.Index(sig, `",algorithm=`)
			r.Header.Set("Signature", `keyId="`+other+sig[i:])
		}, status: 400, code: "SIGNATURE_INVALID", text: "keyId"},
		{name: "wrong algorithm", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			rawSign(t, r, "tpp", []string{"date", "x-request-id", "tpp-redirect-uri"}, "hmac-sha256")
		}, status: 400, code: "SIGNATURE_INVALID"},
		{name: "x-request-id not covered", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			rawSign(t, r, "tpp", []string{"date", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "SIGNATURE_INVALID", text: "x-request-id"},
		{name: "tpp-redirect-uri present but not covered", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			rawSign(t, r, "tpp", []string{"date", "x-request-id"}, "rsa-sha256")
		}, status: 400, code: "SIGNATURE_INVALID", text: "tpp-redirect-uri"},
		{name: "independently signed request with coverage passes", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			rawSign(t, r, "tpp", []string{"(request-target)", "date", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 401, code: "CONSENT_INVALID"},
		{name: "digest missing on a body", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1}`, after: func(t *testing.T, r *http.Request) {
			r.Header.Del("Digest")
			rawSign(t, r, "tpp", []string{"date", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "FORMAT_ERROR", text: "digest"},
		{name: "digest does not match body", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1}`, before: func(t *testing.T, r *http.Request) {}, after: func(t *testing.T, r *http.Request) {
			r.Header.Set("Digest", "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=")
			rawSign(t, r, "tpp", []string{"date", "digest", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "FORMAT_ERROR", text: "digest"},
		{name: "digest malformed", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1}`, after: func(t *testing.T, r *http.Request) {
			r.Header.Set("Digest", "SHA-256=not base64!")
			rawSign(t, r, "tpp", []string{"date", "digest", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "FORMAT_ERROR", text: "digest"},
		{name: "digest with unsupported algorithm only", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1}`, after: func(t *testing.T, r *http.Request) {
			r.Header.Set("Digest", "MD5=HUXZLQLMuI/KZ5KDcJPcOA==")
			rawSign(t, r, "tpp", []string{"date", "digest", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "FORMAT_ERROR", text: "digest"},
		{name: "date missing", bad: true, path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			r.Header.Del("Date")
			rawSign(t, r, "tpp", []string{"x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "TIMESTAMP_INVALID"},
		{name: "date unparseable", bad: true, path: "/v1/accounts", after: func(t *testing.T, r *http.Request) {
			r.Header.Set("Date", "2026-11-22T10:00:00Z")
			rawSign(t, r, "tpp", []string{"date", "x-request-id", "tpp-redirect-uri"}, "rsa-sha256")
		}, status: 400, code: "TIMESTAMP_INVALID"},
		{name: "date 2 minutes in the past", path: "/v1/accounts", signerNow: -2 * time.Minute, status: 400, code: "TIMESTAMP_INVALID"},
		{name: "date 2 minutes in the future", path: "/v1/accounts", signerNow: 2 * time.Minute, status: 400, code: "TIMESTAMP_INVALID"},
		{name: "date 50 s in the past is accepted", path: "/v1/accounts", signerNow: -50 * time.Second, status: 401, code: "CONSENT_INVALID"},
		{name: "x-request-id not a UUID", bad: true, path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("X-Request-ID", "12345") }, status: 400, code: "FORMAT_ERROR", text: "x-request-id"},
		{name: "psu-ip-address malformed", bad: true, path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("PSU-IP-Address", "300.1.1.1") }, status: 400, code: "FORMAT_ERROR", text: "psu-ip-address"},
		{name: "tpp-redirect-uri missing on AIS", bad: true, path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Del("TPP-Redirect-URI") }, status: 400, code: "FORMAT_ERROR", text: "tpp-redirect-uri"},
		{name: "tpp-redirect-uri not https", path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("TPP-Redirect-URI", "http://tpp.example.no/cb") }, status: 400, code: "FORMAT_ERROR", text: "tpp-redirect-uri"},
		{name: "repeated signed header", path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("PSU-ID", uuid.NewString()) }, after: func(t *testing.T, r *http.Request) { r.Header.Add("PSU-ID", uuid.NewString()) }, status: 400, code: "FORMAT_ERROR"},
		{name: "emoji in JSON body", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"name":"😀"}`, status: 400, code: "FORMAT_ERROR"},
		{name: "duplicate JSON key", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1,"a":2}`, status: 400, code: "FORMAT_ERROR"},
		{name: "bidi override in header", path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("PSU-User-Agent", "x\u202ey") }, status: 400, code: "FORMAT_ERROR"},
		{name: "body not JSON media type", bad: true, method: "POST", path: "/v1/bank-offered-consents", body: `{"a":1}`, before: func(t *testing.T, r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, status: 415, code: "FORMAT_ERROR"},
		{name: "accept excludes JSON", path: "/v1/accounts", before: func(t *testing.T, r *http.Request) { r.Header.Set("Accept", "application/xml") }, status: 406, code: "REQUESTED_FORMATS_INVALID"},
		{name: "certificate missing", bad: true, path: "/v1/accounts", after: func(t *testing.T, r *http.Request) { r.Header.Del("TPP-Signature-Certificate") }, status: 400, code: "CERTIFICATE_MISSING"},
		{name: "certificate garbage", path: "/v1/accounts", after: func(t *testing.T, r *http.Request) { r.Header.Set("TPP-Signature-Certificate", "bm90IGEgY2VydA==") }, status: 401, code: "CERTIFICATE_INVALID"},
		{name: "certificate from an untrusted CA", tpp: "untrusted", path: "/v1/accounts", status: 401, code: "CERTIFICATE_INVALID"},
		{name: "certificate without PSD2 statement", tpp: "nopsd2", path: "/v1/accounts", status: 401, code: "CERTIFICATE_INVALID"},
		{name: "certificate expired", tpp: "expired", path: "/v1/accounts", status: 401, code: "CERTIFICATE_EXPIRED"},
		{name: "certificate revoked", tpp: "revoked", path: "/v1/accounts", status: 401, code: "CERTIFICATE_REVOKED"},
		{name: "TPP withdrawn in the register", tpp: "withdrawn", path: "/v1/accounts", status: 401, code: "CERTIFICATE_BLOCKED"},
		{name: "TPP not in the register", tpp: "unregistered", path: "/v1/accounts", status: 401, code: "CERTIFICATE_BLOCKED"},
		{name: "AISP on a PIS route", tpp: "aisp", method: "POST", path: "/v1/payments/sepa-credit-transfers", body: string(paymentBody), status: 401, code: "ROLE_INVALID"},
		{name: "register withdrew PSP_PI the certificate still has", tpp: "regrestricted", method: "POST", path: "/v1/payments/sepa-credit-transfers", body: string(paymentBody), status: 401, code: "ROLE_INVALID"},
		{name: "register-restricted TPP still reads accounts", tpp: "regrestricted", path: "/v1/accounts", status: 401, code: "CONSENT_INVALID"},
		// Digest is optional for basket creation: the request passes the
		// gateway and the backend looks the (unknown) payment up.
		{name: "basket without Digest passes the gateway", method: "POST", path: "/v1/signing-baskets", body: `{"paymentIds":["a"]}`, after: func(t *testing.T, r *http.Request) {
			r.Header.Del("Digest")
			r.Header.Set("TPP-Session-ID", "s1")
			r.Header.Set("PSU-ID", "3f0c5e1a-7b7d-4c43-9a1e-2b8e6f3d9c10")
			r.Header.Set("PSU-IP-Address", "192.0.2.10")
			rawSign(t, r, "tpp", []string{"date", "x-request-id", "tpp-redirect-uri", "psu-id"}, "rsa-sha256")
		}, status: 400, code: "FORMAT_ERROR", text: "$.paymentIds[0]"},
		// Basket creation wants the PSU present and named (the
		// description's header table), at the gateway already.
		{name: "basket creation without PSU-ID", bad: true, method: "POST", path: "/v1/signing-baskets", body: `{"paymentIds":["a"]}`, after: func(t *testing.T, r *http.Request) {
			r.Header.Set("TPP-Session-ID", "s1")
			r.Header.Set("PSU-IP-Address", "192.0.2.10")
		}, status: 400, code: "FORMAT_ERROR", text: "PSU-ID"},
		{name: "unsigned request with a withdrawn TPP's certificate learns nothing of the register", bad: true, tpp: "withdrawn", path: "/v1/accounts",
			after: func(t *testing.T, r *http.Request) { r.Header.Del("Signature") }, status: 400, code: "SIGNATURE_MISSING"},
		{name: "unsigned request with an AISP certificate on a PIS route", bad: true, tpp: "aisp", method: "POST", path: "/v1/payments/sepa-credit-transfers", body: `{"a":1}`,
			after: func(t *testing.T, r *http.Request) { r.Header.Del("Signature") }, status: 400, code: "SIGNATURE_MISSING"},
		{name: "encoded slash in the path", path: "/v1/accounts/a%2Fb/balances", status: 400, code: "FORMAT_ERROR"},
		{name: "unknown endpoint", path: "/v2/nothing", unsigned: true, status: 404, code: "RESOURCE_UNKNOWN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			id := tc.tpp
			if id == "" {
				id = "tpp"
			}
			req := newRequest(t, g, method, tc.path, body)
			if tc.before != nil {
				tc.before(t, req)
			}
			if !tc.unsigned {
				s := signer(t, id)
				if tc.signerNow != 0 {
					s.Now = func() time.Time { return time.Now().Add(tc.signerNow) }
				}
				if err := s.Sign(req, body); err != nil {
					t.Fatal(err)
				}
			}
			if tc.after != nil {
				tc.after(t, req)
			}
			if tc.bad {
				badRequest(req)
			}
			got := send(t, c, req)
			if got.status != tc.status || got.err.code() != tc.code {
				t.Fatalf("got %d %s, want %d %s; body %s", got.status, got.err.code(), tc.status, tc.code, got.body)
			}
			if tc.text != "" {
				m := got.err.TPPMessages[0]
				if !containsFold(m.Text+" "+m.Path, tc.text) {
					t.Fatalf("error %q (path %q) does not mention %q", m.Text, m.Path, tc.text)
				}
			}
			if tc.code == "CONSENT_INVALID" {
				if l := got.err.Links["scaRedirect"]; l.Href == "" || l.Verbs[0] != "GET" {
					t.Fatalf("CONSENT_INVALID without scaRedirect: %s", got.body)
				}
			}
		})
	}
}

// TestAccessLogHoldsNoSecrets sends signed requests and then reads the
// gateway's access log: requests are logged, but no signature, certificate,
// context token or raw PSU-ID.
func TestAccessLogHoldsNoSecrets(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	c := client(nil)
	psuID := uuid.NewString()
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	req.Header.Set("PSU-ID", psuID)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	sig := req.Header.Get("Signature")
	if got := send(t, c, req); got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("%d %s", got.status, got.body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(g.logs(), req.Header.Get("X-Request-ID")) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	logs := g.logs()
	if !strings.Contains(logs, req.Header.Get("X-Request-ID")) {
		t.Fatal("the request was not access-logged")
	}
	cert := pki.TPP("tpp").Seal.HeaderValue()
	sigValue := sig[strings.Index(sig, `signature="`)+11:]
	for what, secret := range map[string]string{"certificate": cert[:60], "signature": sigValue[:40], "PSU-ID": psuID} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds the %s", what)
		}
	}
	if !strings.Contains(logs, `"request_id":"`+req.Header.Get("X-Request-ID")+`"`) {
		t.Error("the audit record lacks the X-Request-ID")
	}
	if !strings.Contains(logs, `"obgw":{`) || !strings.Contains(logs, `"signature":"pass"`) {
		t.Error("the log lacks the obgw.signature decision")
	}
	// The same decisions are counted in Prometheus metrics, without TPP
	// or PSU labels.
	resp, err := http.Get("http://" + g.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`obgw_check_total{check="signature",decision="pass",mode="enforce"} 1`, `obgw_verify_duration_seconds_count 1`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(string(m), "PSDNO-FSA") || strings.Contains(string(m), psuID) {
		t.Error("metrics carry a TPP or PSU label")
	}
}

func TestReplayRefused(t *testing.T) {
	g := startGateway(t, "Caddyfile")
	c := client(nil)
	req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	if err := signer(t, "tpp").Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	first := send(t, c, req)
	if first.err.code() != "CONSENT_INVALID" {
		t.Fatalf("first: %d %s", first.status, first.body)
	}
	again := req.Clone(req.Context())
	second := send(t, c, again)
	if second.status != 400 || second.err.code() != "FORMAT_ERROR" || !containsFold(second.err.TPPMessages[0].Text, "replay") {
		t.Fatalf("replay: %d %s", second.status, second.body)
	}
	// The same X-Request-ID from another TPP is not a replay.
	other := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
	other.Header.Set("X-Request-ID", req.Header.Get("X-Request-ID"))
	if err := signer(t, "aisp").Sign(other, nil); err != nil {
		t.Fatal(err)
	}
	if got := send(t, c, other); got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("other TPP: %d %s", got.status, got.body)
	}
}
