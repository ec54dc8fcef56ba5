package eidas

import (
	"crypto/x509"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
)

// Fallbacks of the table below.
const (
	noFallback = iota
	crlFetchFallback
	crlFileFallback
)

// TestOCSPCheckerVerify runs the Verifier with an OCSPChecker against a
// real responder and CRL distribution point on loopback.
func TestOCSPCheckerVerify(t *testing.T) {
	rs := revocationFixture(t)
	p := rs.p
	signer := func(ca *testpki.Authority, from, until time.Duration, ekus ...x509.ExtKeyUsage) *testpki.KeyPair {
		now := time.Now()
		kp, err := ca.IssueOCSPSigner(now.Add(from), now.Add(until), ekus...)
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	delegated := signer(p.Issuing, -time.Hour, time.Hour, x509.ExtKeyUsageOCSPSigning)
	noEKU := signer(p.Issuing, -time.Hour, time.Hour, x509.ExtKeyUsageClientAuth)
	expiredSigner := signer(p.Issuing, -2*time.Hour, -time.Hour, x509.ExtKeyUsageOCSPSigning)
	impostorSigner := signer(p.Impostor, -time.Hour, time.Hour, x509.ExtKeyUsageOCSPSigning)
	crlFile, err := LoadCRLs(crlPEM(rs.crlList), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		t.Fatal(err)
	}

	const ok = Kind(-1)
	tests := []struct {
		name      string
		revoked   bool                           // check rs.revoked, else rs.good
		responder func(r *testpki.OCSPResponder) // edits the default responder
		ocsp      http.Handler                   // replaces the responder
		crl       http.Handler                   // replaces the CRL distribution point
		fallback  int
		checker   func(c *OCSPChecker)
		want      Kind
		wantOCSP  int64 // requests to the responder
		wantCRL   int64 // requests to the CRL distribution point
	}{
		{name: "good", want: ok, wantOCSP: 1},
		{name: "good, CRL fallback unused", fallback: crlFetchFallback, want: ok, wantOCSP: 1},
		{name: "revoked", revoked: true, want: KindRevoked, wantOCSP: 1},
		{name: "revoked, CRL fallback unused", revoked: true, fallback: crlFetchFallback, want: KindRevoked, wantOCSP: 1},
		{name: "on hold", responder: func(r *testpki.OCSPResponder) {
			r.Revoked = []x509.RevocationListEntry{{SerialNumber: rs.good.SerialNumber, RevocationTime: rs.clock.Now(), ReasonCode: 6}}
		}, want: KindRevoked, wantOCSP: 1},

		{name: "responder down, no fallback", ocsp: status(http.StatusServiceUnavailable), want: KindUnavailable, wantOCSP: 1},
		{name: "responder down, CRL says good", ocsp: status(http.StatusServiceUnavailable), fallback: crlFetchFallback, want: ok, wantOCSP: 1, wantCRL: 1},
		{name: "responder down, CRL says revoked", revoked: true, ocsp: status(http.StatusServiceUnavailable), fallback: crlFetchFallback, want: KindRevoked, wantOCSP: 1, wantCRL: 1},
		{name: "responder down, CRL file says revoked", revoked: true, ocsp: status(http.StatusInternalServerError), fallback: crlFileFallback, want: KindRevoked, wantOCSP: 1},
		{name: "responder and CRL down", ocsp: status(http.StatusServiceUnavailable), crl: status(http.StatusNotFound), fallback: crlFetchFallback, want: KindUnavailable, wantOCSP: 1, wantCRL: 1},
		{name: "try later", responder: func(r *testpki.OCSPResponder) { r.ResponseStatus = testpki.OCSPTryLater }, want: KindUnavailable, wantOCSP: 1},
		{name: "garbage response", ocsp: body([]byte("<html>maintenance</html>")), want: KindUnavailable, wantOCSP: 1},
		{name: "oversized response", checker: func(c *OCSPChecker) { c.MaxResponseBytes = 100 }, want: KindUnavailable, wantOCSP: 1},

		{name: "stale", responder: func(r *testpki.OCSPResponder) { r.Now = func() time.Time { return rs.clock.Now().Add(-2 * time.Hour) } }, want: KindUnavailable, wantOCSP: 1},
		{name: "stale, CRL says good", responder: func(r *testpki.OCSPResponder) { r.Now = func() time.Time { return rs.clock.Now().Add(-2 * time.Hour) } }, fallback: crlFetchFallback, want: ok, wantOCSP: 1, wantCRL: 1},
		{name: "stale, CRL says revoked", revoked: true, responder: func(r *testpki.OCSPResponder) { r.Now = func() time.Time { return rs.clock.Now().Add(-2 * time.Hour) } }, fallback: crlFetchFallback, want: KindRevoked, wantOCSP: 1, wantCRL: 1},
		{name: "stale within clock skew", responder: func(r *testpki.OCSPResponder) {
			r.Now = func() time.Time { return rs.clock.Now().Add(-time.Hour - 4*time.Minute) }
		}, want: ok, wantOCSP: 1},
		{name: "thisUpdate in the future", responder: func(r *testpki.OCSPResponder) { r.Now = func() time.Time { return rs.clock.Now().Add(time.Hour) } }, want: KindUnavailable, wantOCSP: 1},
		{name: "no nextUpdate, fresh", responder: func(r *testpki.OCSPResponder) { r.OmitNextUpdate = true }, want: ok, wantOCSP: 1},
		{name: "no nextUpdate, too old", responder: func(r *testpki.OCSPResponder) {
			r.OmitNextUpdate = true
			r.Now = func() time.Time { return rs.clock.Now().Add(-2 * time.Hour) }
		}, want: KindUnavailable, wantOCSP: 1},
		{name: "unknown", responder: func(r *testpki.OCSPResponder) { r.Unknown = []*big.Int{rs.good.SerialNumber} }, want: KindUnavailable, wantOCSP: 1},
		{name: "unknown, CRL says good", responder: func(r *testpki.OCSPResponder) { r.Unknown = []*big.Int{rs.good.SerialNumber} }, fallback: crlFetchFallback, want: ok, wantOCSP: 1, wantCRL: 1},

		{name: "signed by a wrong key", responder: func(r *testpki.OCSPResponder) { r.Key = p.Impostor.Key }, want: KindUnavailable, wantOCSP: 1},
		{name: "signed by a wrong key, CRL says revoked", revoked: true, responder: func(r *testpki.OCSPResponder) { r.Key = p.Impostor.Key }, fallback: crlFetchFallback, want: KindRevoked, wantOCSP: 1, wantCRL: 1},
		{name: "delegated responder", responder: func(r *testpki.OCSPResponder) { r.Key, r.Certificate = delegated.Key, delegated.Certificate }, want: ok, wantOCSP: 1},
		{name: "delegated responder, revoked", revoked: true, responder: func(r *testpki.OCSPResponder) { r.Key, r.Certificate = delegated.Key, delegated.Certificate }, want: KindRevoked, wantOCSP: 1},
		{name: "delegated responder without OCSPSigning", responder: func(r *testpki.OCSPResponder) { r.Key, r.Certificate = noEKU.Key, noEKU.Certificate }, want: KindUnavailable, wantOCSP: 1},
		{name: "delegated responder expired", responder: func(r *testpki.OCSPResponder) { r.Key, r.Certificate = expiredSigner.Key, expiredSigner.Certificate }, want: KindUnavailable, wantOCSP: 1},
		{name: "delegated responder of another CA", responder: func(r *testpki.OCSPResponder) { r.Key, r.Certificate = impostorSigner.Key, impostorSigner.Certificate }, want: KindUnavailable, wantOCSP: 1},
		{name: "issuer certificate embedded", responder: func(r *testpki.OCSPResponder) { r.Certificate = p.Issuing.Certificate }, want: ok, wantOCSP: 1},

		{name: "nonce echoed", checker: func(c *OCSPChecker) { c.Nonce = true }, want: ok, wantOCSP: 1},
		{name: "nonce ignored", responder: func(r *testpki.OCSPResponder) { r.OmitNonce = true }, checker: func(c *OCSPChecker) { c.Nonce = true }, want: KindUnavailable, wantOCSP: 1},
		{name: "nonce wrong", responder: func(r *testpki.OCSPResponder) { r.Nonce = []byte{4, 1, 0} }, checker: func(c *OCSPChecker) { c.Nonce = true }, want: KindUnavailable, wantOCSP: 1},
		{name: "nonce not asked, sent anyway", responder: func(r *testpki.OCSPResponder) { r.Nonce = []byte{4, 1, 0} }, want: ok, wantOCSP: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			if tt.responder != nil {
				tt.responder(rs.responder)
			}
			if tt.ocsp != nil {
				rs.setOCSP(tt.ocsp)
			}
			if tt.crl != nil {
				rs.setCRL(tt.crl)
			}
			var fallback RevocationChecker
			switch tt.fallback {
			case crlFetchFallback:
				fallback = rs.crlFetcher()
			case crlFileFallback:
				crlFile.Now = rs.clock.Now
				fallback = crlFile
			}
			c := rs.ocspChecker(fallback)
			if tt.checker != nil {
				tt.checker(c)
			}
			cert := rs.good
			if tt.revoked {
				cert = rs.revoked
			}
			_, err := rs.verifier(c).VerifySeal(cert)
			if tt.want == ok {
				if err != nil {
					t.Fatalf("VerifySeal: %v (cause: %v)", err, unwrapOnce(err))
				}
			} else {
				assertRejected(t, err, tt.want, "")
			}
			if got := rs.ocspHits.Load(); got != tt.wantOCSP {
				t.Errorf("%d OCSP requests, want %d", got, tt.wantOCSP)
			}
			if got := rs.crlHits.Load(); got != tt.wantCRL {
				t.Errorf("%d CRL requests, want %d", got, tt.wantCRL)
			}
		})
	}
}

// unwrapOnce returns the cause of an *Error, for failure messages.
func unwrapOnce(err error) error {
	if e, ok := err.(*Error); ok {
		return e.Err
	}
	return nil
}

// TestOCSPCheckerErrors checks what the error of a failed check says, for
// the logs.
func TestOCSPCheckerErrors(t *testing.T) {
	closedURL := revocationFixture(t).closedURL
	tests := []struct {
		name      string
		setup     func(rs *revocationServer, c *OCSPChecker)
		wantParts []string
	}{
		{"HTTP status", func(rs *revocationServer, c *OCSPChecker) { rs.setOCSP(status(http.StatusBadGateway)) }, []string{"OCSP responder http://", "HTTP status 502"}},
		{"stale", func(rs *revocationServer, c *OCSPChecker) {
			rs.responder.Now = func() time.Time { return rs.clock.Now().Add(-3 * time.Hour) }
		}, []string{"stale", "nextUpdate"}},
		{"wrong key", func(rs *revocationServer, c *OCSPChecker) { rs.responder.Key = rs.p.Impostor.Key }, []string{"not signed by the certificate's CA"}},
		{"unknown", func(rs *revocationServer, c *OCSPChecker) { rs.responder.Unknown = []*big.Int{rs.good.SerialNumber} }, []string{"status unknown"}},
		{"try later", func(rs *revocationServer, c *OCSPChecker) { rs.responder.ResponseStatus = testpki.OCSPTryLater }, []string{`answered "try later"`}},
		{"unreachable", func(rs *revocationServer, c *OCSPChecker) { c.Override = rs.closedURL }, []string{closedURL, "connection refused"}},
		{"fallback fails too", func(rs *revocationServer, c *OCSPChecker) {
			rs.setOCSP(status(http.StatusServiceUnavailable))
			rs.setCRL(status(http.StatusNotFound))
			c.Fallback = rs.crlFetcher()
		}, []string{"HTTP status 503", "; fallback: ", "eidas: CRL http://", "HTTP status 404"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			c := rs.ocspChecker(nil)
			tt.setup(rs, c)
			revoked, err := c.Revoked(rs.good, rs.issuer)
			if err == nil || revoked {
				t.Fatalf("Revoked = %v, %v; want an error", revoked, err)
			}
			for _, part := range tt.wantParts {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

// TestOCSPCheckerSources covers certificates without a usable OCSP URL,
// the Override URL, and the issuer check.
func TestOCSPCheckerSources(t *testing.T) {
	rs := revocationFixture(t)
	p := rs.p
	noAIA := p.TPP("tpp").Seal.Certificate            // names no OCSP responder
	noAIARevoked := p.TPP("revoked").Seal.Certificate // listed in p.CRL
	crlFile, err := LoadCRLs(crlPEM(p.CRL), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		t.Fatal(err)
	}
	httpsOnly := func() *x509.Certificate {
		c := *rs.good
		c.OCSPServer = []string{"https://ocsp.qtsp.example/", "ldap://ocsp.qtsp.example/"}
		return &c
	}()
	tests := []struct {
		name         string
		cert, issuer *x509.Certificate
		checker      func(c *OCSPChecker)
		want         bool
		wantErr      string
		wantOCSP     int64
	}{
		{name: "leaf without responder", cert: noAIA, issuer: p.Issuing.Certificate, wantErr: "names no http OCSP responder"},
		{name: "leaf with https responder only", cert: httpsOnly, issuer: p.Issuing.Certificate, wantErr: "names no http OCSP responder"},
		{name: "CA without responder", cert: p.Issuing.Certificate, issuer: p.Root.Certificate, want: false},
		{name: "leaf without responder, CRL file fallback", cert: noAIARevoked, issuer: p.Issuing.Certificate, checker: func(c *OCSPChecker) { c.Fallback = crlFile }, want: true},
		{name: "override, CA without responder", cert: p.Issuing.Certificate, issuer: p.Root.Certificate, checker: func(c *OCSPChecker) { c.Override = rs.srv.URL + "/ocsp" }, want: false},
		{name: "override, good", cert: noAIA, issuer: p.Issuing.Certificate, checker: func(c *OCSPChecker) { c.Override = rs.srv.URL + "/ocsp" }, want: false, wantOCSP: 1},
		{name: "override, revoked", cert: noAIARevoked, issuer: p.Issuing.Certificate, checker: func(c *OCSPChecker) { c.Override = rs.srv.URL + "/ocsp" }, want: true, wantOCSP: 1},
		{name: "override replaces the AIA URL", cert: rs.good, issuer: p.Issuing.Certificate, checker: func(c *OCSPChecker) { c.Override = rs.closedURL }, wantErr: "connection refused"},
		{name: "override unreachable, CRL fallback", cert: rs.revoked, issuer: p.Issuing.Certificate, checker: func(c *OCSPChecker) {
			c.Override = rs.closedURL
			c.Fallback = rs.crlFetcher()
		}, want: true},
		{name: "issuer mismatch", cert: rs.good, issuer: p.Root.Certificate, wantErr: "issuer name does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			c := rs.ocspChecker(nil)
			if tt.checker != nil {
				tt.checker(c)
			}
			got, err := c.Revoked(tt.cert, tt.issuer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Revoked = %v, %v; want error %q", got, err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Fatalf("Revoked = %v, %v; want %v", got, err, tt.want)
			}
			if n := rs.ocspHits.Load(); n != tt.wantOCSP {
				t.Errorf("%d OCSP requests, want %d", n, tt.wantOCSP)
			}
		})
	}
}

// TestOCSPCheckerCache checks how long answers are cached: the responder
// counts the requests.
func TestOCSPCheckerCache(t *testing.T) {
	tests := []struct {
		name     string
		revoked  bool
		validity time.Duration // responder's nextUpdate - thisUpdate
		noNext   bool          // responder omits nextUpdate
		ttl      time.Duration // MaxCacheTTL
		advance  time.Duration // between the two checks
		want     int64         // requests after the second check
	}{
		{name: "second check hits the cache", validity: time.Hour, advance: 30 * time.Minute, want: 1},
		{name: "just before nextUpdate", validity: 10 * time.Minute, advance: 10*time.Minute - time.Second, want: 1},
		{name: "expires at nextUpdate", validity: 10 * time.Minute, advance: 10 * time.Minute, want: 2},
		{name: "bounded by MaxCacheTTL", validity: 24 * time.Hour, ttl: time.Minute, advance: time.Minute + time.Second, want: 2},
		{name: "within MaxCacheTTL", validity: 24 * time.Hour, ttl: time.Minute, advance: 59 * time.Second, want: 1},
		{name: "default MaxCacheTTL is an hour", validity: 24 * time.Hour, advance: time.Hour, want: 2},
		{name: "no nextUpdate: thisUpdate plus TTL", noNext: true, ttl: 10 * time.Minute, advance: 9 * time.Minute, want: 1},
		{name: "no nextUpdate, expired", noNext: true, ttl: 10 * time.Minute, advance: 10 * time.Minute, want: 2},
		{name: "negative TTL disables caching", validity: time.Hour, ttl: -1, want: 2},
		{name: "final revocation is never asked again", revoked: true, validity: time.Minute, advance: 30 * 24 * time.Hour, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			rs.responder.Validity = tt.validity
			rs.responder.OmitNextUpdate = tt.noNext
			c := rs.ocspChecker(nil)
			c.MaxCacheTTL = tt.ttl
			cert := rs.good
			if tt.revoked {
				cert = rs.revoked
			}
			for i := range 2 {
				if i == 1 {
					rs.clock.Advance(tt.advance)
				}
				got, err := c.Revoked(cert, rs.issuer)
				if err != nil || got != tt.revoked {
					t.Fatalf("check %d: Revoked = %v, %v; want %v", i+1, got, err, tt.revoked)
				}
			}
			if n := rs.ocspHits.Load(); n != tt.want {
				t.Errorf("%d OCSP requests, want %d", n, tt.want)
			}
		})
	}
}

// TestOCSPCheckerCacheBounded checks that MaxCacheEntries evicts the
// least recently used answer.
func TestOCSPCheckerCacheBounded(t *testing.T) {
	rs := revocationFixture(t)
	c := rs.ocspChecker(nil)
	c.MaxCacheEntries = 1
	for i, cert := range []*x509.Certificate{rs.good, rs.revoked, rs.good} {
		if _, err := c.Revoked(cert, rs.issuer); err != nil {
			t.Fatalf("check %d: %v", i+1, err)
		}
	}
	if n := rs.ocspHits.Load(); n != 3 {
		t.Errorf("%d OCSP requests, want 3: one entry cannot hold two certificates", n)
	}
}

// TestOCSPCheckerSingleflight checks that concurrent checks of an
// uncached certificate make one request.
func TestOCSPCheckerSingleflight(t *testing.T) {
	rs := revocationFixture(t)
	release := make(chan struct{})
	rs.setOCSP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		rs.responder.ServeHTTP(w, r)
	}))
	c := rs.ocspChecker(nil)
	const n = 50
	type result struct {
		revoked bool
		err     error
	}
	results := make(chan result, n)
	for range n {
		go func() {
			revoked, err := c.Revoked(rs.revoked, rs.issuer)
			results <- result{revoked, err}
		}()
	}
	waitSharing(t, n-1, release)
	close(release)
	for range n {
		r := <-results
		if r.err != nil || !r.revoked {
			t.Fatalf("Revoked = %v, %v; want true", r.revoked, r.err)
		}
	}
	if got := rs.ocspHits.Load(); got != 1 {
		t.Errorf("%d OCSP requests for %d concurrent checks, want 1", got, n)
	}
	if _, err := c.Revoked(rs.revoked, rs.issuer); err != nil || rs.ocspHits.Load() != 1 {
		t.Errorf("check after the flight: %v, %d requests; want the cached answer", err, rs.ocspHits.Load())
	}
}

// TestOCSPCheckerRevokedWins checks that no later failure, and no
// fallback's "good", undoes a revocation.
func TestOCSPCheckerRevokedWins(t *testing.T) {
	t.Run("final revocation, responder and CRL down", func(t *testing.T) {
		rs := revocationFixture(t)
		c := rs.ocspChecker(rs.crlFetcher())
		c.MaxCacheTTL = time.Minute
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
		rs.setOCSP(status(http.StatusServiceUnavailable))
		rs.setCRL(status(http.StatusServiceUnavailable))
		rs.clock.Advance(48 * time.Hour)
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
		if rs.ocspHits.Load() != 1 || rs.crlHits.Load() != 0 {
			t.Errorf("%d OCSP, %d CRL requests; want 1, 0", rs.ocspHits.Load(), rs.crlHits.Load())
		}
	})
	t.Run("final revocation, responder says good later", func(t *testing.T) {
		rs := revocationFixture(t)
		c := rs.ocspChecker(nil)
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
		rs.responder.Revoked = nil
		rs.clock.Advance(2 * time.Hour)
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
	})
	t.Run("hold, then outage and a CRL that says good, then lifted", func(t *testing.T) {
		rs := revocationFixture(t)
		rs.responder.Revoked = []x509.RevocationListEntry{{SerialNumber: rs.good.SerialNumber, RevocationTime: rs.clock.Now(), ReasonCode: 6}}
		rs.responder.Validity = 10 * time.Minute
		c := rs.ocspChecker(rs.crlFetcher())
		assertRevoked(t, c, rs.good, rs.issuer, true)
		rs.setOCSP(status(http.StatusServiceUnavailable))
		rs.clock.Advance(11 * time.Minute)
		assertRevoked(t, c, rs.good, rs.issuer, true)
		lifted := rs.newResponder()
		lifted.Revoked = nil
		rs.setOCSP(lifted)
		assertRevoked(t, c, rs.good, rs.issuer, false)
		if rs.ocspHits.Load() != 3 {
			t.Errorf("%d OCSP requests, want 3: a hold is asked about again", rs.ocspHits.Load())
		}
	})
	t.Run("revoked by the fallback, then both down", func(t *testing.T) {
		rs := revocationFixture(t)
		rs.setOCSP(status(http.StatusServiceUnavailable))
		c := rs.ocspChecker(rs.crlFetcher())
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
		rs.setCRL(status(http.StatusServiceUnavailable))
		rs.clock.Advance(48 * time.Hour) // past the CRL's nextUpdate and every TTL
		assertRevoked(t, c, rs.revoked, rs.issuer, true)
	})
}

func assertRevoked(t *testing.T, rc RevocationChecker, cert, issuer *x509.Certificate, want bool) {
	t.Helper()
	got, err := rc.Revoked(cert, issuer)
	if err != nil || got != want {
		t.Fatalf("Revoked = %v, %v; want %v", got, err, want)
	}
}

// TestVerifySealOCSPOverride runs the Verifier with an override responder
// on the generated certificates, which name no responder; the issuing CA
// certificate is not sent to it.
func TestVerifySealOCSPOverride(t *testing.T) {
	rs := revocationFixture(t)
	c := rs.ocspChecker(nil)
	c.Override = rs.srv.URL + "/ocsp"
	v := rs.verifier(c)
	if _, err := v.VerifySeal(rs.p.TPP("tpp").Seal.Certificate); err != nil {
		t.Fatalf("tpp: %v (cause: %v)", err, unwrapOnce(err))
	}
	_, err := v.VerifyWeb(rs.p.TPP("revoked").Web.Certificate)
	assertRejected(t, err, KindRevoked, "revoked")
	if n := rs.ocspHits.Load(); n != 2 {
		t.Errorf("%d OCSP requests, want 2: one per TPP certificate, none for the CA", n)
	}
}

// A responder that hangs costs one check its Timeout; for TimeoutBackoff
// after that, checks go straight to the fallback, and it is asked again
// once the backoff is over.
func TestOCSPCheckerBacksOffAfterTimeout(t *testing.T) {
	rs := revocationFixture(t)
	rs.setOCSP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	c := rs.ocspChecker(rs.crlFetcher())
	c.Timeout = 200 * time.Millisecond
	c.TimeoutBackoff = 10 * time.Second

	start := time.Now()
	if revoked, err := c.Revoked(rs.good, rs.issuer); err != nil || revoked {
		t.Fatalf("first check: %v, %v; want the CRL's good", revoked, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("first check took %s: the responder was not waited for", d)
	}
	hits := rs.ocspHits.Load()
	start = time.Now()
	if revoked, err := c.Revoked(rs.good, rs.issuer); err != nil || revoked {
		t.Fatalf("second check: %v, %v", revoked, err)
	}
	if d := time.Since(start); d >= 150*time.Millisecond || rs.ocspHits.Load() != hits {
		t.Fatalf("second check took %s and asked the responder %d more times: no backoff", d, rs.ocspHits.Load()-hits)
	}
	// A revoked certificate is still found through the fallback.
	if revoked, err := c.Revoked(rs.revoked, rs.issuer); err != nil || !revoked {
		t.Fatalf("revoked certificate during the backoff: %v, %v", revoked, err)
	}
	// Without a fallback the error says why the responder was not asked.
	c.Fallback = nil
	if _, err := c.Revoked(rs.good, rs.issuer); err == nil || !strings.Contains(err.Error(), "timed out recently") {
		t.Fatalf("no fallback: %v", err)
	}
	// After the backoff the responder is asked again (and answers now).
	rs.setOCSP(rs.responder)
	rs.clock.Advance(11 * time.Second)
	if revoked, err := c.Revoked(rs.good, rs.issuer); err != nil || revoked {
		t.Fatalf("after the backoff: %v, %v", revoked, err)
	}
	if rs.ocspHits.Load() == hits {
		t.Fatal("the responder was not asked again after the backoff")
	}
}
