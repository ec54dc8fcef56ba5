package integration

import (
	"crypto/x509"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
	p, err := testpki.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	responder := p.OCSPResponder()
	ocspSrv := httptest.NewServer(responder)
	defer ocspSrv.Close()
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
