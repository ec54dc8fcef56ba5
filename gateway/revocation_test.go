package gateway

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/eidas"
)

// deadResponder returns the URL of a loopback port nobody listens on.
func deadResponder(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// testCRL loads the test PKI's CRL file (it lists the "revoked" TPP).
func testCRL(t *testing.T) *eidas.CRLChecker {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(pkiDir, "qtsp-cas.pem"))
	if err != nil {
		t.Fatal(err)
	}
	var cas []*x509.Certificate
	for b, rest := pem.Decode(raw); b != nil; b, rest = pem.Decode(rest) {
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		cas = append(cas, c)
	}
	crl, err := os.ReadFile(filepath.Join(pkiDir, "qtsp-crl.pem"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := eidas.LoadCRLs(crl, cas)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestVerifyOCSPOnError: with the OCSP responder unreachable and no CRL
// answering, a route that denies answers 503 SERVICE_UNAVAILABLE, one that
// allows lets the request through marked error_allowed (certificate and
// QWAC), and the certificate is not cached as verified for other routes.
func TestVerifyOCSPOnError(t *testing.T) {
	f := newFixture(t)
	f.v.cfg.Certificates.Revocation = &eidas.OCSPChecker{Override: deadResponder(t), Timeout: 2 * time.Second}
	deny := &Policy{RequiredRole: "PSP_AI"}
	allow := &Policy{RequiredRole: "PSP_AI", OCSPOnError: OnErrorAllow}

	o := f.v.Verify(context.Background(), f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil), deny)
	if o.Err == nil || o.Err.Code != "SERVICE_UNAVAILABLE" || o.Err.Status != 503 || o.Decision(CheckCertificate) != DecisionFail {
		t.Fatalf("deny: %v %s", o.Err, o.Decision(CheckCertificate))
	}

	o = f.v.Verify(context.Background(), f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil), allow)
	if o.Err != nil || o.Token == "" || o.Decision(CheckCertificate) != DecisionErrorAllowed ||
		o.Decision(CheckSignature) != DecisionPass || o.Decision(CheckRegistry) != DecisionPass {
		t.Fatalf("allow: %v certificate=%s signature=%s", o.Err, o.Decision(CheckCertificate), o.Decision(CheckSignature))
	}
	if !slices.Equal(o.Context.Unverified, []string{"ocsp:error_allowed"}) || o.Context.TPP != "PSDNO-FSA-987654321" || len(o.Roles) != 2 {
		t.Fatalf("context %+v", o.Context)
	}
	if f.v.certs.Len() != 0 || f.v.certDER.Len() != 0 {
		t.Fatal("a certificate of unknown revocation status was cached as verified")
	}
	// The signature is still checked: a forged one is refused.
	r := f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.HTTP.Header.Set("X-Request-ID", randomUUID())
	if o := f.v.Verify(context.Background(), r, allow); o.Err == nil || o.Err.Code != "SIGNATURE_INVALID" {
		t.Fatalf("forged signature under allow: %v", o.Err)
	}
	// The deny route right after still fails closed.
	o = f.v.Verify(context.Background(), f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil), deny)
	if o.Err == nil || o.Err.Code != "SERVICE_UNAVAILABLE" {
		t.Fatalf("deny after allow: %v", o.Err)
	}

	// The QWAC's revocation status is unknown too: same policy, one mark.
	r = f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.ClientCertificate = f.pki.TPP("tpp").Web.Certificate
	o = f.v.Verify(context.Background(), r, allow)
	if o.Err != nil || o.Decision(CheckQWAC) != DecisionErrorAllowed || !slices.Equal(o.Context.Unverified, []string{"ocsp:error_allowed"}) {
		t.Fatalf("QWAC under allow: %v %s %v", o.Err, o.Decision(CheckQWAC), o.Context.Unverified)
	}
	r = f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil)
	r.ClientCertificate = f.pki.TPP("tpp").Web.Certificate
	deny.Modes[CheckCertificate] = ModeReportOnly // get past the QSealC to the QWAC
	if o := f.v.Verify(context.Background(), r, deny); o.Err == nil || o.Err.Code != "SERVICE_UNAVAILABLE" || o.Decision(CheckQWAC) != DecisionFail {
		t.Fatalf("QWAC under deny: %v %s", o.Err, o.Decision(CheckQWAC))
	}
}

// TestVerifyOCSPOnErrorRevokedAlwaysRefused: with the responder down, the
// CRL fallback answers; a certificate it lists is refused as revoked even
// where the route allows an unknown status, and a good one passes.
func TestVerifyOCSPOnErrorRevokedAlwaysRefused(t *testing.T) {
	f := newFixture(t)
	f.v.cfg.Certificates.Revocation = &eidas.OCSPChecker{Override: deadResponder(t), Fallback: testCRL(t), Timeout: 2 * time.Second}
	allow := &Policy{OCSPOnError: OnErrorAllow}
	o := f.v.Verify(context.Background(), f.sign(t, "revoked", "GET", "/v1/accounts", nil, nil), allow)
	if o.Err == nil || o.Err.Code != "CERTIFICATE_REVOKED" || o.Err.Status != 401 {
		t.Fatalf("revoked under allow: %v", o.Err)
	}
	o = f.v.Verify(context.Background(), f.sign(t, "tpp", "GET", "/v1/accounts", nil, nil), allow)
	if o.Err != nil || o.Decision(CheckCertificate) != DecisionPass || len(o.Context.Unverified) != 0 {
		t.Fatalf("good certificate through the CRL fallback: %v %s %v", o.Err, o.Decision(CheckCertificate), o.Context.Unverified)
	}
}
