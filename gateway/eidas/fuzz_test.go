package eidas

import (
	"crypto/rsa"
	"regexp"
	"testing"
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
