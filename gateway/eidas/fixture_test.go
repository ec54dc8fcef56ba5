package eidas

import (
	"crypto/x509"
	"sync"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
)

var (
	pkiOnce sync.Once
	pkiVal  *testpki.PKI
	pkiErr  error
)

// testPKI returns one freshly generated test PKI per test binary, so that
// tests can also issue certificates of their own from its CAs.
func testPKI(tb testing.TB) *testpki.PKI {
	tb.Helper()
	pkiOnce.Do(func() { pkiVal, pkiErr = testpki.Generate(time.Now()) })
	if pkiErr != nil {
		tb.Fatalf("generating test PKI: %v", pkiErr)
	}
	return pkiVal
}

// testVerifier returns a Verifier trusting p's QTSP root, with p's issuing
// CA as intermediate and revocation from p's CRL.
func testVerifier(tb testing.TB, p *testpki.PKI) *Verifier {
	tb.Helper()
	crl, err := LoadCRLs(crlPEM(p.CRL), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		tb.Fatalf("LoadCRLs: %v", err)
	}
	return &Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Revocation: crl}
}

// mustTPP returns the TPP with the given id or fails the test.
func mustTPP(tb testing.TB, p *testpki.PKI, id string) *testpki.TPP {
	tb.Helper()
	t := p.TPP(id)
	if t == nil {
		tb.Fatalf("test PKI has no TPP %q", id)
	}
	return t
}
