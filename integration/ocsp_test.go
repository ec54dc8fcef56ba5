package integration

import (
	"crypto/x509"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

// TestOCSPThroughGateway: with ocsp on, the gateway asks the OCSP
// responder a TPP certificate names (a real responder on loopback): a good
// certificate passes and a revoked one gets 401 CERTIFICATE_REVOKED. (The
// fallbacks, stale answers and caching are tested in gateway/eidas.)
func TestOCSPThroughGateway(t *testing.T) {
	p, dir, responder, ocspSrv := ocspPKI(t)
	good, err := p.IssueTPPCertificate("tpp", testpki.Seal, testpki.RevocationURLs{OCSP: ocspSrv.URL})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := p.IssueTPPCertificate("tpp", testpki.Seal, testpki.RevocationURLs{OCSP: ocspSrv.URL})
	if err != nil {
		t.Fatal(err)
	}
	responder.Revoked = append(responder.Revoked, x509.RevocationListEntry{SerialNumber: new(big.Int).Set(bad.Certificate.SerialNumber), RevocationTime: time.Now().Add(-time.Hour)})

	g := startGateway(t, "Caddyfile", "OBGW_DATA_DIR="+t.TempDir(), "OBGW_OCSP=on",
		"OBGW_QTSP_CAS="+filepath.Join(dir, "qtsp-cas.pem"), "OBGW_CRL="+filepath.Join(dir, "qtsp-crl.pem"),
		"OBGW_REGISTRY="+filepath.Join(dir, "registry.json"))
	call := func(kp *testpki.KeyPair) response {
		req := newRequest(t, g, http.MethodGet, "/v1/accounts", nil)
		s := &tppclient.Signer{Key: kp.Key, Certificate: kp.Certificate.Raw}
		if err := s.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		return send(t, client(nil), req)
	}
	if got := call(good); got.err.code() != "CONSENT_INVALID" {
		t.Fatalf("good certificate: %d %s", got.status, got.body)
	}
	if got := call(bad); got.status != 401 || got.err.code() != "CERTIFICATE_REVOKED" {
		t.Fatalf("revoked certificate: %d %s", got.status, got.body)
	}
	if responder.Requests() < 2 {
		t.Fatalf("the responder was asked %d times", responder.Requests())
	}
}

// TestOCSPUnreachableThroughGateway: with ocsp on and the OCSP responder
// (a real one on loopback) cut off, a certificate whose CRL distribution
// point does not answer either gets 503 SERVICE_UNAVAILABLE on a route
// with the default on_error ocsp deny and passes, marked error_allowed, on
// one with on_error ocsp allow. A certificate known to be revoked, by the
// responder before it went away or by the CRL it names, gets 401
// CERTIFICATE_REVOKED on either. When the responder returns, the first
// certificate passes without a restart.
func TestOCSPUnreachableThroughGateway(t *testing.T) {
	p, dir, responder, ocspSrv := ocspPKI(t)
	ocspProxy := newTCPProxy(t, strings.TrimPrefix(ocspSrv.URL, "http://"))
	ocspURL := "http://" + ocspProxy.addr
	crlDP := testpki.NewCRLDistributionPoint(p.CRL)
	crlSrv := httptest.NewServer(crlDP)
	defer crlSrv.Close()
	deadCRL := fmt.Sprintf("http://127.0.0.1:%d/issuing.crl", freePort(t))
	issue := func(crl string) *testpki.KeyPair {
		kp, err := p.IssueTPPCertificate("tpp", testpki.Seal, testpki.RevocationURLs{OCSP: ocspURL, CRL: crl})
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	good, orphan, revokedByOCSP, revokedByCRL := issue(deadCRL), issue(deadCRL), issue(deadCRL), issue(crlSrv.URL+"/issuing.crl")
	responder.Revoked = append(responder.Revoked, x509.RevocationListEntry{SerialNumber: new(big.Int).Set(revokedByOCSP.Certificate.SerialNumber), RevocationTime: time.Now().Add(-time.Hour)})
	crl, err := p.Issuing.RevocationList(2, []*big.Int{revokedByCRL.Certificate.SerialNumber}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	crlDP.SetCRL(crl)

	g := startGateway(t, "integration/testdata/onerror.Caddyfile", "OBGW_OCSP=on",
		"OBGW_QTSP_CAS="+filepath.Join(dir, "qtsp-cas.pem"), "OBGW_REGISTRY="+filepath.Join(dir, "registry.json")).
		fixture("onerror.Caddyfile: test routes /v1/deny and /v1/allow answer the checks' decisions")
	expect := func(what, path string, kp *testpki.KeyPair, status int, want string) {
		t.Helper()
		got := signedCall(t, g, path, kp)
		if got.status != status || status == 200 && string(got.body) != want || status != 200 && got.err.code() != want {
			t.Fatalf("%s: %d %s, want %d %s", what, got.status, got.body, status, want)
		}
	}

	expect("responder up", "/v1/deny", good, 200, "certificate=pass registry=pass")
	expect("revoked, responder up", "/v1/allow", revokedByOCSP, 401, "CERTIFICATE_REVOKED")
	asked := responder.Requests()

	ocspProxy.cut()
	expect("status unknown, deny", "/v1/deny", orphan, 503, "SERVICE_UNAVAILABLE")
	expect("status unknown, allow", "/v1/allow", orphan, 200, "certificate=error_allowed registry=pass")
	expect("status unknown, deny after allow", "/v1/deny", orphan, 503, "SERVICE_UNAVAILABLE")
	expect("revoked by the responder before it went away", "/v1/allow", revokedByOCSP, 401, "CERTIFICATE_REVOKED")
	expect("revoked by the CRL, responder down", "/v1/allow", revokedByCRL, 401, "CERTIFICATE_REVOKED")
	expect("good answer cached", "/v1/deny", good, 200, "certificate=pass registry=pass")
	if crlDP.Requests() == 0 {
		t.Fatal("the CRL fallback was not asked")
	}
	if responder.Requests() != asked {
		t.Fatalf("the responder answered %d requests while cut off", responder.Requests()-asked)
	}

	ocspProxy.restore(t)
	expect("responder back", "/v1/deny", orphan, 200, "certificate=pass registry=pass")
	if responder.Requests() == asked {
		t.Fatal("the responder was not asked after it returned")
	}
}

// ocspPKI generates a test PKI, writes it to a temporary directory and
// serves its OCSP responder on loopback until the test ends.
func ocspPKI(t *testing.T) (*testpki.PKI, string, *testpki.OCSPResponder, *httptest.Server) {
	t.Helper()
	p, err := testpki.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	responder := p.OCSPResponder()
	srv := httptest.NewServer(responder)
	t.Cleanup(srv.Close)
	return p, dir, responder, srv
}
