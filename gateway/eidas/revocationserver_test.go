package eidas

import (
	"crypto/x509"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
)

// fakeClock is a settable clock shared by checkers and responders.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// revocationServer is a loopback HTTP server with an OCSP responder at
// /ocsp and a CRL distribution point at /crl, and TPP certificates naming
// them. Tests swap its handlers; they must not run in parallel.
type revocationServer struct {
	p   *testpki.PKI
	srv *httptest.Server
	// good and revoked are the "tpp" and "revoked" TPPs' QSealCs naming
	// the server; the default responder and CRL list revoked.
	good, revoked *x509.Certificate
	issuer        *x509.Certificate

	ocsp, crl          atomic.Value // http.Handler
	ocspHits, crlHits  atomic.Int64
	clock              *fakeClock
	responder          *testpki.OCSPResponder
	crlDP              *testpki.CRLDistributionPoint
	crlList            *x509.RevocationList // what crlDP serves
	revokedSerials     []*big.Int
	closedURL          string // an http URL where nothing listens
	certsOnce, srvOnce sync.Once
}

var sharedRevocationServer revocationServer

// revocationFixture returns the shared server reset for a test: the clock
// at now, a fresh default responder (signing with the issuing CA, Now from
// the clock) and a CRL valid for a day listing the revoked certificate.
func revocationFixture(tb testing.TB) *revocationServer {
	tb.Helper()
	rs := &sharedRevocationServer
	rs.p = testPKI(tb)
	rs.srvOnce.Do(func() {
		rs.srv = httptest.NewServer(http.HandlerFunc(rs.serve))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			rs.closedURL = "http://" + ln.Addr().String() + "/ocsp"
			ln.Close()
		}
	})
	var certErr error
	rs.certsOnce.Do(func() {
		urls := testpki.RevocationURLs{OCSP: rs.srv.URL + "/ocsp", CRL: rs.srv.URL + "/crl"}
		var good, revoked *testpki.KeyPair
		if good, certErr = rs.p.IssueTPPCertificate("tpp", testpki.Seal, urls); certErr != nil {
			return
		}
		if revoked, certErr = rs.p.IssueTPPCertificate("revoked", testpki.Seal, urls); certErr != nil {
			return
		}
		rs.good, rs.revoked, rs.issuer = good.Certificate, revoked.Certificate, rs.p.Issuing.Certificate
		rs.revokedSerials = []*big.Int{rs.revoked.SerialNumber}
		for _, e := range rs.p.CRL.RevokedCertificateEntries {
			rs.revokedSerials = append(rs.revokedSerials, e.SerialNumber)
		}
	})
	if certErr != nil || rs.good == nil {
		tb.Fatalf("issuing certificates naming the test server: %v", certErr)
	}
	rs.clock = &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
	rs.responder = rs.newResponder()
	rs.setOCSP(rs.responder)
	rs.crlList = rs.newCRL(tb, rs.p.Issuing, rs.revokedSerials, -time.Hour, 24*time.Hour)
	rs.crlDP = testpki.NewCRLDistributionPoint(rs.crlList)
	rs.setCRL(rs.crlDP)
	rs.ocspHits.Store(0)
	rs.crlHits.Store(0)
	return rs
}

// newResponder returns the default responder: the issuing CA's, revoking
// the revoked certificate (keyCompromise) besides the PKI's CRL entries,
// with thisUpdate from the clock.
func (rs *revocationServer) newResponder() *testpki.OCSPResponder {
	r := rs.p.OCSPResponder()
	r.Revoked = append(r.Revoked, x509.RevocationListEntry{SerialNumber: rs.revoked.SerialNumber, RevocationTime: rs.clock.Now().Add(-time.Hour), ReasonCode: 1})
	r.Now = rs.clock.Now
	return r
}

// newCRL returns a CRL of ca listing serials, with thisUpdate and
// nextUpdate relative to the clock.
func (rs *revocationServer) newCRL(tb testing.TB, ca *testpki.Authority, serials []*big.Int, thisUpdate, nextUpdate time.Duration) *x509.RevocationList {
	tb.Helper()
	now := rs.clock.Now()
	crl, err := ca.RevocationList(2, serials, now.Add(thisUpdate), now.Add(nextUpdate))
	if err != nil {
		tb.Fatal(err)
	}
	return crl
}

func (rs *revocationServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ocsp":
		rs.ocspHits.Add(1)
		rs.ocsp.Load().(http.Handler).ServeHTTP(w, r)
	case "/crl":
		rs.crlHits.Add(1)
		rs.crl.Load().(http.Handler).ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (rs *revocationServer) setOCSP(h http.Handler) { rs.ocsp.Store(handler{h}) }
func (rs *revocationServer) setCRL(h http.Handler)  { rs.crl.Store(handler{h}) }

// handler gives every stored handler one concrete type, as atomic.Value
// requires.
type handler struct{ http.Handler }

// ocspChecker returns a checker using the server's client and clock.
func (rs *revocationServer) ocspChecker(fallback RevocationChecker) *OCSPChecker {
	return &OCSPChecker{Client: rs.srv.Client(), Fallback: fallback, Now: rs.clock.Now, Timeout: 5 * time.Second}
}

// crlFetcher returns a fetcher using the server's client and clock.
func (rs *revocationServer) crlFetcher() *CRLFetcher {
	return &CRLFetcher{Client: rs.srv.Client(), Now: rs.clock.Now}
}

// verifier returns a Verifier of the test PKI using rc and the clock.
func (rs *revocationServer) verifier(rc RevocationChecker) *Verifier {
	return &Verifier{Roots: rs.p.QTSPPool(), Intermediates: rs.p.IntermediatePool(), Revocation: rc, Now: rs.clock.Now}
}

// status returns a handler answering with an HTTP status only.
func status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	})
}

// body returns a handler answering 200 with b.
func body(b []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(b)
	})
}
