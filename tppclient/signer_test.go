package tppclient

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"math/big"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func referenceNow() time.Time {
	t, err := time.Parse(http.TimeFormat, referenceDate)
	if err != nil {
		panic(err)
	}
	return t
}

var signatureParam = regexp.MustCompile(`(\w+)="([^"]*)"`)

// signatureFields decodes an RFC 2047 value and splits the parameters; it
// is a test-only reader, independent of the gateway's parser.
func signatureFields(t *testing.T, v string) map[string]string {
	t.Helper()
	if strings.HasPrefix(v, "=?") {
		d, err := new(mime.WordDecoder).DecodeHeader(v)
		if err != nil {
			t.Fatalf("RFC 2047 decode: %v", err)
		}
		v = d
	}
	params := map[string]string{}
	for _, m := range signatureParam.FindAllStringSubmatch(v, -1) {
		params[m[1]] = m[2]
	}
	return params
}

func verifySigningString(t *testing.T, pub *rsa.PublicKey, signingString, sigB64 string) {
	t.Helper()
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		t.Fatalf("signature is not base64: %v", err)
	}
	h := sha256.Sum256([]byte(signingString))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], sig); err != nil {
		t.Fatalf("signature does not verify over %q: %v", signingString, err)
	}
}

func appendixCSigner(t *testing.T) *Signer {
	key := appendixCKey(t)
	cert := makeCert(t, certSpec{serial: big.NewInt(0x1A2B3C4D5E6F), subject: pkixName("Appendix C test"), key: key})
	return &Signer{Key: key, Certificate: cert.Raw, SignRequestTarget: true, Now: referenceNow}
}

func TestSignReproducesBG1(t *testing.T) {
	s := appendixCSigner(t)
	req, err := http.NewRequest(http.MethodPost, "https://example.com/v1/payments/sepa-credit-transfers?x=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	req.Header.Set("PSU-ID", "PSU-1234")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=abc")
	if err := s.Sign(req, []byte(helloWorldBody)); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Date"); got != referenceDate {
		t.Errorf("Date = %q, want %q", got, referenceDate)
	}
	if got := req.Header.Get("Digest"); got != helloWorldDigest {
		t.Errorf("Digest = %q, want %q", got, helloWorldDigest)
	}
	_, ss, err := s.signingString(req, true)
	if err != nil {
		t.Fatal(err)
	}
	if ss != bg1SigningString {
		t.Errorf("signing string:\n%s\nwant:\n%s", ss, bg1SigningString)
	}
	p := signatureFields(t, req.Header.Get("Signature"))
	if p["signature"] != bg1Signature {
		t.Errorf("signature = %q, want %q", p["signature"], bg1Signature)
	}
	if want := "(request-target) date digest x-request-id psu-id tpp-redirect-uri"; p["headers"] != want {
		t.Errorf("headers = %q, want %q", p["headers"], want)
	}
	if p["algorithm"] != "rsa-sha256" {
		t.Errorf("algorithm = %q, want rsa-sha256", p["algorithm"])
	}
	if p["keyId"] != "SN=1A2B3C4D5E6F,CA=CN=Appendix C test" {
		t.Errorf("keyId = %q, want the default from the certificate", p["keyId"])
	}
	// Verify with the reference public key, not the key the signer holds.
	b, _ := pem.Decode([]byte(appendixCPublicKey))
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	verifySigningString(t, pub.(*rsa.PublicKey), bg1SigningString, p["signature"])
	if got := req.Header.Get("TPP-Signature-Certificate"); got != base64.StdEncoding.EncodeToString(s.Certificate) {
		t.Errorf("TPP-Signature-Certificate is not the base64 of the certificate")
	}
}

func TestSignReproducesBG2WithRFC2047(t *testing.T) {
	s := appendixCSigner(t)
	s.KeyID = bg2KeyID
	s.DigestEmptyBody = true
	req, err := http.NewRequest(http.MethodGet, "https://example.com/v1/accounts", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	req.Header.Set("PSU-ID", "Øyvind Ærø")
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	_, ss, err := s.signingString(req, true)
	if err != nil {
		t.Fatal(err)
	}
	if ss != bg2SigningString {
		t.Errorf("signing string:\n%s\nwant:\n%s", ss, bg2SigningString)
	}
	if got := req.Header.Get("Signature"); got != bg2Encoded {
		t.Errorf("Signature =\n%s\nwant\n%s", got, bg2Encoded)
	}
	decoded, err := new(mime.WordDecoder).DecodeHeader(req.Header.Get("Signature"))
	if err != nil || decoded != bg2Decoded {
		t.Errorf("decoded Signature = %q, %v; want %q", decoded, err, bg2Decoded)
	}
	if got := req.Header.Get("Digest"); got != emptyBodyDigest {
		t.Errorf("Digest = %q, want %q", got, emptyBodyDigest)
	}
}

func TestSignASCIISignatureIsNotEncoded(t *testing.T) {
	s := appendixCSigner(t)
	s.KeyID = "SN=1A2B3C4D5E6F,CA=CN=Test QTSP Root CA,O=Test QTSP AS,C=NO"
	req, _ := http.NewRequest(http.MethodGet, "https://example.com/v1/accounts", nil)
	req.Header.Set("PSU-ID", "Øyvind") // non-ASCII in a signed header, not in the Signature value
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if v := req.Header.Get("Signature"); !strings.HasPrefix(v, `keyId="SN=1A2B3C4D5E6F,`) {
		t.Errorf("Signature = %q, want the plain (not RFC 2047) value", v)
	}
}

func TestSignHeaderSelection(t *testing.T) {
	const uuidV4 = `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`
	tests := []struct {
		name          string
		method, url   string
		body          string
		requestTarget bool
		digestEmpty   bool
		headers       [][2]string // added in this order
		wantHeaders   string
		wantTarget    string
	}{
		{
			name: "POST with body and corporate id", method: "POST", url: "https://h.example/v1/payments/x", body: `{"a":1}`,
			headers:     [][2]string{{"PSU-Corporate-ID", "c0a8e2f4-6b3e-4d7b-9a51-2f0c5e8d1a77"}},
			wantHeaders: "date digest x-request-id psu-corporate-id",
		},
		{
			name: "GET without body sends no digest", method: "GET", url: "https://h.example/v1/accounts",
			headers:     [][2]string{{"Digest", "SHA-256=stale"}},
			wantHeaders: "date x-request-id",
		},
		{
			name: "GET without body with DigestEmptyBody", method: "GET", url: "https://h.example/v1/accounts", digestEmpty: true,
			wantHeaders: "date digest x-request-id",
		},
		{
			name: "optional headers in fixed order", method: "DELETE", url: "https://h.example/v1/consents/1", requestTarget: true,
			headers: [][2]string{
				{"TPP-Redirect-URI", "https://tpp.example.no/cb"},
				{"PSU-Corporate-ID", "c0a8e2f4-6b3e-4d7b-9a51-2f0c5e8d1a77"},
				{"psu-id", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"},
				{"TPP-Session-ID", "not signed"},
			},
			wantHeaders: "(request-target) date x-request-id psu-id psu-corporate-id tpp-redirect-uri",
			wantTarget:  "delete /v1/consents/1",
		},
		{
			name: "request target keeps escapes and query", method: "GET", url: "https://h.example/api-sandbox/v1/a%20b?x=%2F&y=1", requestTarget: true,
			wantHeaders: "(request-target) date x-request-id",
			wantTarget:  "get /api-sandbox/v1/a%20b?x=%2F&y=1",
		},
		{
			name: "empty method is GET", method: "", url: "https://h.example/v1/user", requestTarget: true,
			wantHeaders: "(request-target) date x-request-id",
			wantTarget:  "get /v1/user",
		},
		{
			name: "values are signed as sent, trimmed", method: "GET", url: "https://h.example/v1/accounts",
			headers:     [][2]string{{"PSU-ID", "  3f2504e0-4f89-41d3-9a0c-0305e82c3301\t"}},
			wantHeaders: "date x-request-id psu-id",
		},
	}
	key := testKey(t, 1)
	pki := newTestPKI(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Signer{Key: key, Certificate: pki.leaf.Raw, SignRequestTarget: tt.requestTarget, DigestEmptyBody: tt.digestEmpty}
			req, err := http.NewRequest(tt.method, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range tt.headers {
				req.Header.Add(h[0], h[1])
			}
			before := time.Now().Add(-time.Second)
			if err := s.Sign(req, []byte(tt.body)); err != nil {
				t.Fatal(err)
			}
			p := signatureFields(t, req.Header.Get("Signature"))
			if p["headers"] != tt.wantHeaders {
				t.Fatalf("headers = %q, want %q", p["headers"], tt.wantHeaders)
			}
			// Rebuild the signing string from what will be sent.
			var lines []string
			for _, name := range strings.Fields(p["headers"]) {
				if name == "(request-target)" {
					// Written out in the test, so a wrong target fails the verification.
					lines = append(lines, name+": "+tt.wantTarget)
					continue
				}
				lines = append(lines, name+": "+strings.TrimSpace(req.Header.Get(name)))
			}
			verifySigningString(t, &key.PublicKey, strings.Join(lines, "\n"), p["signature"])
			if _, present := req.Header["Digest"]; present != strings.Contains(tt.wantHeaders, "digest") {
				t.Errorf("Digest header present = %v, want %v", present, !present)
			}
			if d := req.Header.Get("Digest"); d != "" {
				sum := sha256.Sum256([]byte(tt.body))
				if d != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
					t.Errorf("Digest = %q does not match the body", d)
				}
			}
			if !regexp.MustCompile(uuidV4).MatchString(req.Header.Get("X-Request-ID")) {
				t.Errorf("X-Request-ID = %q, want a random UUID", req.Header.Get("X-Request-ID"))
			}
			date, err := http.ParseTime(req.Header.Get("Date"))
			if err != nil || date.Before(before) || date.After(time.Now().Add(time.Second)) {
				t.Errorf("Date = %q (%v), want now in IMF-fixdate", req.Header.Get("Date"), err)
			}
			if !strings.HasSuffix(req.Header.Get("Date"), " GMT") {
				t.Errorf("Date = %q, want GMT", req.Header.Get("Date"))
			}
			got, _ := io.ReadAll(req.Body)
			if string(got) != tt.body || req.ContentLength != int64(len(tt.body)) {
				t.Errorf("body = %q (ContentLength %d), want %q", got, req.ContentLength, tt.body)
			}
			rc, err := req.GetBody()
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := io.ReadAll(rc); string(again) != tt.body {
				t.Errorf("GetBody gives %q, want %q", again, tt.body)
			}
		})
	}
}

func TestSignKeepsAPresetRequestIDAndMakesFreshOnes(t *testing.T) {
	pki := newTestPKI(t)
	s := &Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw}
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		req, _ := http.NewRequest("GET", "https://h.example/v1/accounts", nil)
		if err := s.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		id := req.Header.Get("X-Request-ID")
		if seen[id] {
			t.Fatalf("X-Request-ID %s repeated", id)
		}
		seen[id] = true
	}
	req, _ := http.NewRequest("GET", "https://h.example/v1/accounts", nil)
	req.Header.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	if err := s.Sign(req, nil); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("X-Request-ID"); got != "99391c7e-ad88-49ec-a2ad-99ddcb1f7721" {
		t.Errorf("X-Request-ID = %q, want the preset one", got)
	}
}

func TestSignErrors(t *testing.T) {
	pki := newTestPKI(t)
	tests := []struct {
		name    string
		signer  Signer
		headers [][2]string
		noURL   bool
		wantErr string
	}{
		{name: "no URL", signer: Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw}, noURL: true, wantErr: "no URL"},
		{name: "no key", signer: Signer{Certificate: pki.leaf.Raw}, wantErr: "no Key"},
		{name: "no certificate", signer: Signer{Key: pki.leafKey}, wantErr: "no Certificate"},
		{name: "certificate that does not parse", signer: Signer{Key: pki.leafKey, Certificate: []byte{0x30, 0x01}}, wantErr: "parse Certificate"},
		{name: "keyId with a quote", signer: Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw, KeyID: `SN=1,CA=CN=a"b`}, wantErr: `contains '"'`},
		{name: "repeated PSU-ID", signer: Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw},
			headers: [][2]string{{"PSU-ID", "a"}, {"PSU-ID", "b"}}, wantErr: "psu-id header set 2 times"},
		{name: "line break in TPP-Redirect-URI", signer: Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw},
			headers: [][2]string{{"TPP-Redirect-URI", "https://a/\r\nX: y"}}, wantErr: "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "https://h.example/v1/accounts", nil)
			for _, h := range tt.headers {
				req.Header.Add(h[0], h[1])
			}
			if tt.noURL {
				req.URL = nil
			}
			err := tt.signer.Sign(req, nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Sign() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewSigner(t *testing.T) {
	pki := newTestPKI(t)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(pki.leafKey)})
	p8, err := x509.MarshalPKCS8PrivateKey(pki.leafKey)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8})
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec8, _ := x509.MarshalPKCS8PrivateKey(ecKey)
	ecPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ec8})
	otherPKCS1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testKey(t, 2))})
	chainPEM := append(pemCert(pki.leaf), pemCert(pki.ca)...)
	const wantKeyID = "SN=ABCDEF0123,CA=organizationIdentifier=NTRNO-987654321,CN=Test QTSP Issuing CA\\, Norway,O=Test QTSP AS,C=NO"

	tests := []struct {
		name    string
		key     []byte
		cert    []byte
		wantErr string
	}{
		{name: "PKCS#1", key: pkcs1, cert: pemCert(pki.leaf)},
		{name: "PKCS#8", key: pkcs8, cert: pemCert(pki.leaf)},
		{name: "chain PEM uses the first certificate", key: pkcs8, cert: chainPEM},
		{name: "key and certificate in one PEM", key: append(pemCert(pki.leaf), pkcs8...), cert: append(pemCert(pki.leaf), pkcs8...)},
		{name: "key of another certificate", key: otherPKCS1, cert: pemCert(pki.leaf), wantErr: "does not hold the public key"},
		{name: "EC key", key: ecPEM, cert: pemCert(pki.leaf), wantErr: "needs an RSA key"},
		{name: "no key block", key: []byte("not a key"), cert: pemCert(pki.leaf), wantErr: "no \"PRIVATE KEY\""},
		{name: "broken PKCS#1", key: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte{1, 2}}), cert: pemCert(pki.leaf), wantErr: "parse PKCS#1"},
		{name: "no certificate block", key: pkcs1, cert: pkcs1, wantErr: "no CERTIFICATE"},
		{name: "broken certificate", key: pkcs1, cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30}}), wantErr: "parse certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSigner(tt.key, tt.cert)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewSigner() = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(s.Certificate, pki.leaf.Raw) || !s.Key.Equal(pki.leafKey) {
				t.Fatal("NewSigner did not keep the leaf certificate and its key")
			}
			if s.KeyID != "" {
				t.Errorf("KeyID = %q, want it left empty (it is the override)", s.KeyID)
			}
			req, _ := http.NewRequest("GET", "https://h.example/v1/accounts", nil)
			if err := s.Sign(req, nil); err != nil {
				t.Fatal(err)
			}
			if got := signatureFields(t, req.Header.Get("Signature"))["keyId"]; got != wantKeyID {
				t.Errorf("keyId = %q, want %q", got, wantKeyID)
			}
		})
	}
}

func BenchmarkSign(b *testing.B) {
	pki := newTestPKI(b)
	s := &Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw, SignRequestTarget: true}
	s.defaultKeyID, _ = DefaultKeyID(pki.leaf)
	s.defaultKeyIDFor = pki.leaf.Raw
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"2.00"},"debtorAccount":{"bban":"09232911044"},"creditorAccount":{"bban":"12345678903"},"creditorName":"Test AS"}`)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("POST", "https://api.bank.example/v1/payments/domestic-norway-credit-transfers", nil)
		req.Header.Set("PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
		req.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=abc")
		if err := s.Sign(req, body); err != nil {
			b.Fatal(err)
		}
	}
}
