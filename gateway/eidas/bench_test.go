package eidas

import (
	"crypto/x509"
	"testing"
	"time"
)

func BenchmarkDecodeCertificate(b *testing.B) {
	h := mustTPP(b, testPKI(b), "tpp").Seal.HeaderValue()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeCertificate(h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCertificate(b *testing.B) {
	h := mustTPP(b, testPKI(b), "tpp").Seal.HeaderValue()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCertificate(h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseQCStatements(b *testing.B) {
	c := mustTPP(b, testPKI(b), "tpp").Seal.Certificate
	var ext []byte
	for _, e := range c.Extensions {
		if e.Id.Equal(oidQCStatements) {
			ext = e.Value
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseQCStatements(ext); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseOrganizationIdentifier(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := ParseOrganizationIdentifier("PSDNO-FSA-987654321"); !ok {
			b.Fatal("rejected")
		}
	}
}

// BenchmarkVerifySeal measures a cold check (no result cache): QCStatements,
// chain building with signature verification, and the CRL lookup.
func BenchmarkVerifySeal(b *testing.B) {
	p := testPKI(b)
	v := testVerifier(b, p)
	for _, id := range []string{"tpp", "rsa3072", "rsa4096"} {
		c := mustTPP(b, p, id).Seal.Certificate
		b.Run(id, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.VerifySeal(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifySealFromHeader is the whole cost of a cache miss: header
// value to Identity.
func BenchmarkVerifySealFromHeader(b *testing.B) {
	p := testPKI(b)
	v := testVerifier(b, p)
	h := mustTPP(b, p, "tpp").Seal.HeaderValue()
	b.ReportAllocs()
	for b.Loop() {
		c, err := ParseCertificate(h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.VerifySeal(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCRLRevoked(b *testing.B) {
	p := testPKI(b)
	c, err := LoadCRLs(crlPEM(p.CRL), []*x509.Certificate{p.Issuing.Certificate})
	if err != nil {
		b.Fatal(err)
	}
	cert := mustTPP(b, p, "tpp").Seal.Certificate
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Revoked(cert, p.Issuing.Certificate); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOCSPCheckerCached is the hot path of OCSP checking: a
// certificate whose answer is cached.
func BenchmarkOCSPCheckerCached(b *testing.B) {
	rs := revocationFixture(b)
	c := rs.ocspChecker(nil)
	if _, err := c.Revoked(rs.good, rs.issuer); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if revoked, err := c.Revoked(rs.good, rs.issuer); err != nil || revoked {
			b.Fatal(revoked, err)
		}
	}
}

// BenchmarkOCSPCheckerMiss is a check with caching disabled: request,
// loopback HTTP exchange, response signing by the test responder and
// verification.
func BenchmarkOCSPCheckerMiss(b *testing.B) {
	rs := revocationFixture(b)
	c := rs.ocspChecker(nil)
	c.MaxCacheTTL = -1
	b.ReportAllocs()
	for b.Loop() {
		if revoked, err := c.Revoked(rs.good, rs.issuer); err != nil || revoked {
			b.Fatal(revoked, err)
		}
	}
}

// BenchmarkVerifyOCSPResponse is the gateway's own work on a cache miss:
// parsing and verifying a response.
func BenchmarkVerifyOCSPResponse(b *testing.B) {
	rs := revocationFixture(b)
	req, err := newOCSPRequest(rs.good, rs.issuer, false)
	if err != nil {
		b.Fatal(err)
	}
	der := rs.responder.Respond(req.der)
	want := ocspExpectation{now: rs.clock.Now(), skew: defaultClockSkew, maxAge: time.Hour}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := verifyOCSPResponse(der, rs.good, rs.issuer, want); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCRLFetcherCached is a check against a downloaded CRL.
func BenchmarkCRLFetcherCached(b *testing.B) {
	rs := revocationFixture(b)
	f := rs.crlFetcher()
	if _, err := f.Revoked(rs.good, rs.issuer); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if revoked, err := f.Revoked(rs.good, rs.issuer); err != nil || revoked {
			b.Fatal(revoked, err)
		}
	}
}

// BenchmarkVerifySealOCSPCached is a cold Verifier check (no result
// cache) with the OCSP answer cached: compare with BenchmarkVerifySeal.
func BenchmarkVerifySealOCSPCached(b *testing.B) {
	rs := revocationFixture(b)
	v := rs.verifier(rs.ocspChecker(rs.crlFetcher()))
	if _, err := v.VerifySeal(rs.good); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.VerifySeal(rs.good); err != nil {
			b.Fatal(err)
		}
	}
}
