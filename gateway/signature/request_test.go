package signature

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"
)

// signedRequest is a BG request signed with a 2048-bit key whose
// certificate is issued by the test QTSP CA.
type signedRequest struct {
	signature  string // Signature header value
	method     string
	requestURI string
	header     http.Header
	cert       *x509.Certificate
}

func newSignedRequest(t testing.TB) signedRequest {
	t.Helper()
	key := rsa2048(t)
	cert, _ := testCertificate(t, &key.PublicKey)
	r := signedRequest{method: "POST", requestURI: "/v1/payments/sepa-credit-transfers", header: http.Header{}, cert: cert}
	r.header.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	r.header.Set("Digest", "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=")
	r.header.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	r.header.Set("PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	r.header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=abc")
	r.header.Set("PSU-IP-Address", "192.0.2.1")
	r.header.Set("Content-Type", "application/json")
	headers := []string{"date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri"}
	s, err := AppendSigningString(nil, headers, r.method, r.requestURI, r.header)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(s)
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	r.signature = fmt.Sprintf(`keyId="SN=%X,CA=%s",algorithm="rsa-sha256",headers="date digest x-request-id psu-id tpp-redirect-uri",signature="%s"`,
		cert.SerialNumber, issuerRFC2253, base64.StdEncoding.EncodeToString(sig))
	return r
}

// verifyRequest runs the whole check in the order the gateway does.
func verifyRequest(r signedRequest, buf []byte) ([]byte, error) {
	p, err := Parse(r.signature)
	if err != nil {
		return buf, err
	}
	if err := CheckCoverage(p.Headers, r.header, false); err != nil {
		return buf, err
	}
	k, err := ParseKeyID(p.KeyID)
	if err != nil {
		return buf, err
	}
	if !k.Matches(r.cert) {
		return buf, fmt.Errorf("keyId does not match")
	}
	buf, err = AppendSigningString(buf[:0], p.Headers, r.method, r.requestURI, r.header)
	if err != nil {
		return buf, err
	}
	return buf, Verify(r.cert.PublicKey.(*rsa.PublicKey), buf, p.Signature)
}

func TestVerifyRequest(t *testing.T) {
	r := newSignedRequest(t)
	if _, err := verifyRequest(r, nil); err != nil {
		t.Fatalf("verifyRequest: %v", err)
	}
	r.header.Set("PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3302")
	if _, err := verifyRequest(r, nil); err != ErrVerification {
		t.Fatalf("verifyRequest with a changed PSU-ID: %v, want ErrVerification", err)
	}
}
