package eidas

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCRLFetcherRevoked(t *testing.T) {
	rs := revocationFixture(t)
	p := rs.p
	withDPs := func(c *x509.Certificate, dps ...string) *x509.Certificate {
		cp := *c
		cp.CRLDistributionPoints = dps
		return &cp
	}
	tests := []struct {
		name         string
		revoked      bool
		cert, issuer *x509.Certificate // default: rs.good or rs.revoked, rs.issuer
		crl          func(t *testing.T, rs *revocationServer) http.Handler
		fetcher      func(f *CRLFetcher)
		want         bool
		wantErr      string
		wantHits     int64
	}{
		{name: "good", want: false, wantHits: 1},
		{name: "revoked", revoked: true, want: true, wantHits: 1},
		{name: "PEM, revoked", revoked: true, crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: rs.crlList.Raw}))
		}, want: true, wantHits: 1},
		{name: "distribution point down", crl: func(*testing.T, *revocationServer) http.Handler { return status(http.StatusServiceUnavailable) }, wantErr: "HTTP status 503", wantHits: 1},
		{name: "not a CRL", crl: func(*testing.T, *revocationServer) http.Handler { return body([]byte("<html/>")) }, wantErr: "not a DER or PEM X.509 CRL", wantHits: 1},
		{name: "oversized", fetcher: func(f *CRLFetcher) { f.MaxCRLBytes = 100 }, wantErr: "exceeds the limit of 100", wantHits: 1},
		{name: "signed by an impostor", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Impostor, rs.revokedSerials, -time.Hour, time.Hour).Raw)
		}, wantErr: "not signed by the certificate's CA", wantHits: 1},
		{name: "another CA's CRL", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Root, rs.revokedSerials, -time.Hour, time.Hour).Raw)
		}, wantErr: "not signed by the certificate's CA", wantHits: 1},
		{name: "stale, good", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Issuing, rs.revokedSerials, -48*time.Hour, -24*time.Hour).Raw)
		}, wantErr: "stale", wantHits: 1},
		{name: "stale, revoked", revoked: true, crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Issuing, rs.revokedSerials, -48*time.Hour, -24*time.Hour).Raw)
		}, want: true, wantHits: 1},
		{name: "stale within clock skew", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Issuing, rs.revokedSerials, -48*time.Hour, -4*time.Minute).Raw)
		}, want: false, wantHits: 1},
		{name: "thisUpdate in the future", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			return body(rs.newCRL(t, p.Issuing, rs.revokedSerials, time.Hour, 48*time.Hour).Raw)
		}, wantErr: "in the future", wantHits: 1},
		{name: "delta CRL", crl: func(t *testing.T, rs *revocationServer) http.Handler {
			now := rs.clock.Now()
			der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{
				Number: big.NewInt(3), ThisUpdate: now.Add(-time.Hour), NextUpdate: now.Add(time.Hour),
				ExtraExtensions: []pkix.Extension{{Id: oidDeltaCRLIndicator, Value: []byte{2, 1, 2}}},
			}, p.Issuing.Certificate, p.Issuing.Key)
			if err != nil {
				t.Fatal(err)
			}
			return body(der)
		}, wantErr: "delta CRL", wantHits: 1},
		{name: "first distribution point down, second answers", revoked: true,
			cert: withDPs(rs.revoked, "ldap://crl.qtsp.example/", rs.closedURL, rs.srv.URL+"/crl"), want: true, wantHits: 1},
		{name: "leaf without distribution point", cert: p.TPP("tpp").Seal.Certificate, wantErr: "names no http CRL distribution point"},
		{name: "leaf with https distribution point only", cert: withDPs(rs.good, "https://crl.qtsp.example/"), wantErr: "names no http CRL distribution point"},
		{name: "CA without distribution point", cert: p.Issuing.Certificate, issuer: p.Root.Certificate, want: false},
		{name: "issuer mismatch", issuer: p.Root.Certificate, wantErr: "issuer name does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			if tt.crl != nil {
				rs.setCRL(tt.crl(t, rs))
			}
			f := rs.crlFetcher()
			if tt.fetcher != nil {
				tt.fetcher(f)
			}
			cert, issuer := rs.good, rs.issuer
			if tt.revoked {
				cert = rs.revoked
			}
			if tt.cert != nil {
				cert = tt.cert
			}
			if tt.issuer != nil {
				issuer = tt.issuer
			}
			got, err := f.Revoked(cert, issuer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Revoked = %v, %v; want error %q", got, err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Fatalf("Revoked = %v, %v; want %v", got, err, tt.want)
			}
			if n := rs.crlHits.Load(); n != tt.wantHits {
				t.Errorf("%d CRL requests, want %d", n, tt.wantHits)
			}
		})
	}
}

// TestCRLFetcherCache runs sequences of checks, counting the downloads.
func TestCRLFetcherCache(t *testing.T) {
	type step struct {
		advance  time.Duration
		crl      http.Handler // replaces the distribution point's handler
		revoked  bool         // check the revoked certificate
		want     bool
		wantErr  string
		wantHits int64 // downloads so far
	}
	down := status(http.StatusServiceUnavailable)
	tests := []struct {
		name    string
		ttl     time.Duration
		crlNext time.Duration // the CRL's nextUpdate from now; zero: a day
		steps   []step
	}{
		{name: "cached", steps: []step{{wantHits: 1}, {advance: 59 * time.Minute, wantHits: 1}, {revoked: true, want: true, wantHits: 1}}},
		{name: "refetched after MaxCacheTTL", ttl: 10 * time.Minute, steps: []step{{wantHits: 1}, {advance: 10 * time.Minute, wantHits: 2}}},
		{name: "refetched at nextUpdate", crlNext: 10 * time.Minute, steps: []step{{wantHits: 1}, {advance: 9 * time.Minute, wantHits: 1}, {advance: time.Minute, wantHits: 2}}},
		{name: "negative TTL fetches every time", ttl: -1, steps: []step{{wantHits: 1}, {wantHits: 2}}},
		{name: "refetch fails, cached CRL still valid", steps: []step{
			{wantHits: 1},
			{advance: time.Hour, crl: down, wantHits: 2},
			{advance: 30 * time.Second, revoked: true, want: true, wantHits: 2}, // retry interval
			{advance: 30 * time.Second, wantHits: 3},
		}},
		{name: "distribution point down past nextUpdate", steps: []step{
			{revoked: true, want: true, wantHits: 1},
			{advance: 25 * time.Hour, crl: down, wantErr: "HTTP status 503", wantHits: 2},
			{revoked: true, want: true, wantHits: 3}, // the stale CRL still proves it
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := revocationFixture(t)
			if tt.crlNext != 0 {
				rs.crlDP.SetCRL(rs.newCRL(t, rs.p.Issuing, rs.revokedSerials, -time.Hour, tt.crlNext))
			}
			f := rs.crlFetcher()
			f.MaxCacheTTL = tt.ttl
			for i, s := range tt.steps {
				rs.clock.Advance(s.advance)
				if s.crl != nil {
					rs.setCRL(s.crl)
				}
				cert := rs.good
				if s.revoked {
					cert = rs.revoked
				}
				got, err := f.Revoked(cert, rs.issuer)
				if s.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), s.wantErr) {
						t.Fatalf("step %d: Revoked = %v, %v; want error %q", i+1, got, err, s.wantErr)
					}
				} else if err != nil || got != s.want {
					t.Fatalf("step %d: Revoked = %v, %v; want %v", i+1, got, err, s.want)
				}
				if n := rs.crlHits.Load(); n != s.wantHits {
					t.Fatalf("step %d: %d CRL requests, want %d", i+1, n, s.wantHits)
				}
			}
		})
	}
}

func TestCRLFetcherSingleflight(t *testing.T) {
	rs := revocationFixture(t)
	release := make(chan struct{})
	rs.setCRL(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		rs.crlDP.ServeHTTP(w, r)
	}))
	f := rs.crlFetcher()
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		cert := rs.good
		if i%2 == 0 {
			cert = rs.revoked
		}
		go func() {
			revoked, err := f.Revoked(cert, rs.issuer)
			if err == nil && revoked != (cert == rs.revoked) {
				err = errWrongAnswer
			}
			errs <- err
		}()
	}
	waitSharing(t, n-1, release)
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := rs.crlHits.Load(); got != 1 {
		t.Errorf("%d downloads for %d concurrent checks, want 1", got, n)
	}
}

var errWrongAnswer = &Error{Reason: "wrong revocation answer"}

// A distribution point that hangs costs one check its Timeout; for
// TimeoutBackoff after that, checks fail at once (the on_error ocsp policy
// decides), and it is asked again once the backoff is over.
func TestCRLFetcherBacksOffAfterTimeout(t *testing.T) {
	rs := revocationFixture(t)
	rs.setCRL(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	f := rs.crlFetcher()
	f.Timeout = 200 * time.Millisecond
	f.TimeoutBackoff = 10 * time.Second

	start := time.Now()
	if _, err := f.Revoked(rs.good, rs.issuer); err == nil {
		t.Fatal("a hanging distribution point answered")
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("first check took %s: the distribution point was not waited for", d)
	}
	hits := rs.crlHits.Load()
	start = time.Now()
	_, err := f.Revoked(rs.good, rs.issuer)
	if err == nil || !strings.Contains(err.Error(), "timed out recently") {
		t.Fatalf("second check: %v", err)
	}
	if d := time.Since(start); d >= 150*time.Millisecond || rs.crlHits.Load() != hits {
		t.Fatalf("second check took %s and fetched %d more times: no backoff", d, rs.crlHits.Load()-hits)
	}
	rs.setCRL(rs.crlDP)
	rs.clock.Advance(11 * time.Second)
	if revoked, err := f.Revoked(rs.revoked, rs.issuer); err != nil || !revoked {
		t.Fatalf("after the backoff: %v, %v", revoked, err)
	}
	if rs.crlHits.Load() == hits {
		t.Fatal("the distribution point was not asked again after the backoff")
	}
}
