package eidas

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"math/big"
	"regexp"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
	"golang.org/x/crypto/ocsp"
)

// Seed corpora live in testdata/fuzz/<FuzzName>; they hold the committed
// test PKI's certificates and statements in the encodings TPPs send.

func FuzzParseCertificate(f *testing.F) {
	f.Add("")
	f.Add("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")
	f.Fuzz(func(t *testing.T, headerValue string) {
		c, err := ParseCertificate(headerValue)
		if err != nil {
			if KindOf(err) != KindInvalid || len(err.Error()) >= 200 {
				t.Fatalf("bad error %v (kind %v)", err, KindOf(err))
			}
			return
		}
		pub, ok := c.PublicKey.(*rsa.PublicKey)
		if !ok || pub.N.BitLen() < MinRSABits || pub.N.BitLen() > MaxRSABits {
			t.Fatalf("accepted a key that is not RSA %d-%d", MinRSABits, MaxRSABits)
		}
		der, err := DecodeCertificate(headerValue)
		if err != nil || string(der) != string(c.Raw) {
			t.Fatal("DecodeCertificate disagrees with ParseCertificate")
		}
	})
}

func FuzzParseQCStatements(f *testing.F) {
	f.Add([]byte{0x30, 0x00})
	f.Fuzz(func(t *testing.T, der []byte) {
		q, err := ParseQCStatements(der)
		if err != nil {
			if KindOf(err) != KindInvalid || len(err.Error()) >= 200 {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if q.PSD2 == nil {
			return
		}
		if !validStatementString(q.PSD2.NCAName) || !validStatementString(q.PSD2.NCAID) {
			t.Fatalf("accepted NCA strings %q %q", q.PSD2.NCAName, q.PSD2.NCAID)
		}
		seen := map[string]bool{}
		for _, r := range q.PSD2.Roles {
			if seen[r] || (r != RoleAccountServicing && r != RolePaymentInitiation && r != RoleAccountInformation && r != RoleIssuingCardInstrument) {
				t.Fatalf("bad or duplicate role %q in %v", r, q.PSD2.Roles)
			}
			seen[r] = true
		}
	})
}

// orgIDPattern is TS 119 495's pattern (as pkilint has it), the oracle for
// the hand-written parser.
var orgIDPattern = regexp.MustCompile(`^PSD([A-Z]{2})-([A-Z]{2,8})-(.+)$`)

func FuzzParseOrganizationIdentifier(f *testing.F) {
	f.Add("PSDNO-FSA-987654321")
	f.Fuzz(func(t *testing.T, id string) {
		nca, number, ok := ParseOrganizationIdentifier(id)
		m := orgIDPattern.FindStringSubmatch(id)
		if ok {
			if m == nil || m[1]+"-"+m[2] != nca || m[3] != number {
				t.Fatalf("ParseOrganizationIdentifier(%q) = %q, %q but the pattern says %q", id, nca, number, m)
			}
			return
		}
		if m != nil && !hasControl(m[3]) {
			t.Fatalf("ParseOrganizationIdentifier(%q) rejected what the pattern accepts", id)
		}
	})
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return true
		}
	}
	return false
}

// fuzzNonce is the nonce extnValue FuzzVerifyOCSPResponse expects in one
// of its two checks of every input.
var fuzzNonce = []byte{0x04, 0x04, 'o', 'b', 'g', 'w'}

// FuzzVerifyOCSPResponse feeds arbitrary bytes to the OCSP response path.
// The committed corpus holds responses of other runs' PKIs, which parse but
// fail the signature check; the seeds added here verify, so mutations of
// them reach every check. Whatever it accepts, x/crypto/ocsp must accept
// with the issuer too.
func FuzzVerifyOCSPResponse(f *testing.F) {
	rs := revocationFixture(f)
	now := rs.clock.Now()
	for _, s := range fuzzOCSPSeeds(f, rs) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		for _, cert := range []*x509.Certificate{rs.good, rs.revoked} {
			for _, nonce := range [][]byte{nil, fuzzNonce} {
				a, err := verifyOCSPResponse(der, cert, rs.issuer, ocspExpectation{nonce: nonce, now: now, skew: defaultClockSkew, maxAge: time.Hour})
				if err != nil {
					if len(err.Error()) >= 200 {
						t.Fatalf("error of %d characters: %v", len(err.Error()), err)
					}
					continue
				}
				resp, err := ocsp.ParseResponseForCert(der, cert, rs.issuer)
				if err != nil {
					plain, perr := ocsp.ParseResponseForCert(der, cert, nil)
					if perr != nil || plain.Certificate == nil || !bytes.Equal(plain.Certificate.RawSubjectPublicKeyInfo, rs.issuer.RawSubjectPublicKeyInfo) {
						t.Fatalf("accepted a response x/crypto/ocsp rejects: %v", err)
					}
					resp = plain // signed by the issuer, whose certificate it embeds
				}
				if a.revoked != (resp.Status == ocsp.Revoked) || a.thisUpdate.After(now.Add(defaultClockSkew)) ||
					!a.nextUpdate.IsZero() && a.nextUpdate.Before(now.Add(-defaultClockSkew)) {
					t.Fatalf("accepted %+v for status %d", a, resp.Status)
				}
			}
		}
	})
}

// fuzzOCSPSeeds returns signed responses of rs's PKI: good, revoked, on
// hold, unknown, delegated, with the fuzz nonce, stale.
func fuzzOCSPSeeds(tb testing.TB, rs *revocationServer) [][]byte {
	tb.Helper()
	delegated, err := rs.p.Issuing.IssueOCSPSigner(rs.clock.Now().Add(-time.Hour), rs.clock.Now().Add(time.Hour), x509.ExtKeyUsageOCSPSigning)
	if err != nil {
		tb.Fatal(err)
	}
	edits := []func(r *testpki.OCSPResponder){
		nil,
		func(r *testpki.OCSPResponder) { r.Nonce = fuzzNonce },
		func(r *testpki.OCSPResponder) { r.Key, r.Certificate = delegated.Key, delegated.Certificate },
		func(r *testpki.OCSPResponder) { r.Certificate = rs.issuer },
		func(r *testpki.OCSPResponder) { r.OmitNextUpdate = true },
		func(r *testpki.OCSPResponder) {
			r.Revoked = append(r.Revoked, x509.RevocationListEntry{SerialNumber: rs.good.SerialNumber, RevocationTime: rs.clock.Now(), ReasonCode: 6})
		},
		func(r *testpki.OCSPResponder) { r.Unknown = []*big.Int{rs.good.SerialNumber} },
		func(r *testpki.OCSPResponder) { r.Now = func() time.Time { return rs.clock.Now().Add(-3 * time.Hour) } },
	}
	var seeds [][]byte
	for _, edit := range edits {
		r := rs.newResponder()
		if edit != nil {
			edit(r)
		}
		for _, cert := range []*x509.Certificate{rs.good, rs.revoked} {
			req, err := newOCSPRequest(cert, rs.issuer, false)
			if err != nil {
				tb.Fatal(err)
			}
			seeds = append(seeds, r.Respond(req.der))
		}
	}
	return seeds
}

// FuzzParseOCSPResponseData feeds arbitrary bytes to the ResponseData
// decoder.
func FuzzParseOCSPResponseData(f *testing.F) {
	f.Add(responseData(42, []byte{0x80, 0x00}, extension(oidOCSPNonce, false, []byte{4, 1, 1})))
	serial := big.NewInt(42)
	f.Fuzz(func(t *testing.T, tbs []byte) {
		d, err := parseOCSPResponseData(tbs, serial)
		if err != nil {
			if len(err.Error()) >= 200 {
				t.Fatalf("error of %d characters", len(err.Error()))
			}
			return
		}
		if d.status != ocsp.Good && d.status != ocsp.Revoked && d.status != ocsp.Unknown {
			t.Fatalf("status %d", d.status)
		}
		if d.nonce != nil && !d.hasNonce {
			t.Fatal("nonce without hasNonce")
		}
		again, err := parseOCSPResponseData(tbs, serial)
		if err != nil || again.status != d.status || !bytes.Equal(again.nameHash, d.nameHash) {
			t.Fatal("not deterministic")
		}
	})
}
