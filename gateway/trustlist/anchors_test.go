package trustlist

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/trustlist/tltest"
)

type testCA struct {
	key  crypto.Signer
	cert *x509.Certificate
}

var serial int64 = 1

func newCA(t testing.TB, name string, ec bool) *testCA {
	t.Helper()
	var key crypto.Signer
	var err error
	if ec {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name, Country: []string{"NO"}},
		NotBefore: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &testCA{key: key, cert: c}
}

// issue makes a certificate of ca issued at notBefore.
func (ca *testCA) issue(t testing.TB, notBefore time.Time) *x509.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "TPP"},
		NotBefore: notBefore, NotAfter: notBefore.AddDate(3, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

func day(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

// testLists is a LOTL (RSA) pointing at Norway's list (signed with ECDSA
// P-256, as three real lists are) and Sweden's, and the CAs they name.
type testLists struct {
	lotlSigner, noSigner, seSigner             *testCA
	seal, signatures, withdrawn, web, unlisted *testCA
	lotl, no, se                               []byte
}

func newTestLists(t testing.TB) *testLists {
	t.Helper()
	l := &testLists{
		lotlSigner: newCA(t, "Test LOTL signer", false), noSigner: newCA(t, "Test NO list signer", true), seSigner: newCA(t, "Test SE list signer", false),
		seal: newCA(t, "Seal CA", true), signatures: newCA(t, "Signature CA", true), withdrawn: newCA(t, "Withdrawn CA", true),
		web: newCA(t, "Web CA", true), unlisted: newCA(t, "Unlisted CA", true),
	}
	issued := day("2026-11-01")
	var err error
	l.lotl, err = tltest.Sign(tltest.List{Territory: "EU", Sequence: 400, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Pointers: []tltest.Pointer{
		{Territory: "EU", Location: "https://lotl.test/eu-lotl.xml", Signers: []*x509.Certificate{l.lotlSigner.cert}},
		{Territory: "NO", Location: "https://no.test/NO_TL.xml", Signers: []*x509.Certificate{l.noSigner.cert}},
		{Territory: "SE", Location: "https://se.test/SE_TL.xml", Signers: []*x509.Certificate{l.seSigner.cert}},
	}}, l.lotlSigner.key, l.lotlSigner.cert)
	if err != nil {
		t.Fatal(err)
	}
	l.no, err = tltest.Sign(tltest.List{Territory: "NO", Sequence: 90, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Services: []tltest.Service{
		{Name: "Seal CA", CA: l.seal.cert, History: []tltest.Status{{Status: tltest.Granted, Since: day("2019-01-01"), Uses: []string{tltest.Seals, tltest.Signatures}}}},
		{Name: "Signature CA", CA: l.signatures.cert, History: []tltest.Status{{Status: tltest.Granted, Since: day("2019-01-01"), Uses: []string{tltest.Signatures}}}},
		{Name: "Withdrawn CA", CA: l.withdrawn.cert, History: []tltest.Status{
			{Status: tltest.Withdrawn, Since: day("2025-01-01"), Uses: []string{tltest.Seals}},
			{Status: tltest.Granted, Since: day("2019-01-01"), Uses: []string{tltest.Seals}},
		}},
	}}, l.noSigner.key, l.noSigner.cert)
	if err != nil {
		t.Fatal(err)
	}
	l.se, err = tltest.Sign(tltest.List{Territory: "SE", Sequence: 12, Issued: issued, NextUpdate: issued.AddDate(0, 6, 0), Services: []tltest.Service{
		{Name: "Web CA", CA: l.web.cert, History: []tltest.Status{{Status: tltest.Granted, Since: day("2019-01-01"), Uses: []string{tltest.Web}}}},
	}}, l.seSigner.key, l.seSigner.cert)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustList(t testing.TB, raw []byte, signers []*x509.Certificate) *List {
	t.Helper()
	signed, _, err := Verify(raw, signers)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(signed)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestAnchors: lists signed as the EU's are (the LOTL with RSA, a
// national list with ECDSA r || s) verify with the signers the LOTL
// names; a CA is trusted for what its service was granted when the
// certificate was issued: a seal CA for seals and not for websites, a
// CA granted for signatures only not for seals, a CA withdrawn since
// still for what it issued before; an unlisted CA for nothing; the CAs
// of a stale list fail closed as unavailable.
func TestAnchors(t *testing.T) {
	l := newTestLists(t)
	lotl := mustList(t, l.lotl, []*x509.Certificate{l.lotlSigner.cert})
	signersOf := func(territory string) []*x509.Certificate {
		for _, p := range lotl.Pointers {
			if p.Territory == territory {
				return p.Signers
			}
		}
		t.Fatalf("no pointer to %s", territory)
		return nil
	}
	no := mustList(t, l.no, signersOf("NO"))
	se := mustList(t, l.se, signersOf("SE"))
	now := day("2026-11-28")
	clock := func() time.Time { return now }
	a := NewAnchors([]*List{no, se}, 7*24*time.Hour, clock)

	chain := func(ca *testCA, issued time.Time) []*x509.Certificate {
		return []*x509.Certificate{ca.issue(t, issued), ca.cert}
	}
	ok := []struct {
		name  string
		chain []*x509.Certificate
		use   Use
	}{
		{"a seal CA's seal", chain(l.seal, day("2024-05-01")), UseSeal},
		{"a website CA's QWAC", chain(l.web, day("2024-05-01")), UseWeb},
		{"a seal issued before the CA was withdrawn", chain(l.withdrawn, day("2024-12-31")), UseSeal},
	}
	for _, c := range ok {
		if err := a.Qualified(c.chain, c.use); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	refused := []struct {
		name, want string
		chain      []*x509.Certificate
		use        Use
	}{
		{"a seal CA's QWAC", "not qualified for website authentication", chain(l.seal, day("2024-05-01")), UseWeb},
		{"a signature CA's seal", "not qualified for electronic seals", chain(l.signatures, day("2024-05-01")), UseSeal},
		{"a seal issued after the CA was withdrawn", "status withdrawn since 2025-01-01", chain(l.withdrawn, day("2025-06-01")), UseSeal},
		{"a seal issued before the CA was granted", "not yet a trust service", chain(l.seal, day("2018-06-01")), UseSeal},
		{"an unlisted CA's seal", "no CA of the certificate's chain", chain(l.unlisted, day("2024-05-01")), UseSeal},
	}
	for _, c := range refused {
		err := a.Qualified(c.chain, c.use)
		var u *Unqualified
		if !errors.As(err, &u) || u.Stale || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want a refusal saying %q", c.name, err, c.want)
		}
	}
	// The pools: what was ever qualified for the use.
	if _, err := l.seal.issue(t, day("2024-05-01")).Verify(x509.VerifyOptions{Roots: a.Pool(UseSeal)}); err != nil {
		t.Fatalf("the seal CA is not in the seal pool: %v", err)
	}
	if _, err := l.signatures.issue(t, day("2024-05-01")).Verify(x509.VerifyOptions{Roots: a.Pool(UseSeal)}); err == nil {
		t.Fatal("the signature CA is in the seal pool")
	}
	// Norway's list past its NextUpdate and the grace: its CAs fail
	// closed; Sweden's, due later, still decides.
	no.NextUpdate = day("2026-11-01")
	now = day("2026-11-05")
	if err := a.Qualified(chain(l.seal, day("2024-05-01")), UseSeal); err != nil {
		t.Fatalf("within the grace: %v", err)
	}
	now = day("2026-11-09")
	var u *Unqualified
	if err := a.Qualified(chain(l.seal, day("2024-05-01")), UseSeal); !errors.As(err, &u) || !u.Stale {
		t.Fatalf("a stale list's CA: %v", err)
	}
	if err := a.Qualified(chain(l.web, day("2024-05-01")), UseWeb); err != nil {
		t.Fatalf("a current list's CA beside a stale one: %v", err)
	}
	if st := a.StaleTerritories(); len(st) != 1 || st[0] != "NO" {
		t.Fatalf("stale territories %v, want NO", st)
	}
}

// TestListRefusals: a changed national list, one signed by a key the
// LOTL does not name for it, and one whose signer was not valid when it
// says it was issued, are refused.
func TestListRefusals(t *testing.T) {
	l := newTestLists(t)
	if _, _, err := Verify([]byte(strings.Replace(string(l.no), "Withdrawn CA", "Renamed CA", 1)), []*x509.Certificate{l.noSigner.cert}); err == nil {
		t.Fatal("a changed list verified")
	}
	if _, _, err := Verify(l.no, []*x509.Certificate{l.seSigner.cert}); err == nil {
		t.Fatal("a list verified with another territory's signer")
	}
	old, err := tltest.Sign(tltest.List{Territory: "NO", Sequence: 1, Issued: day("2017-01-01"), NextUpdate: day("2017-07-01")}, l.noSigner.key, l.noSigner.cert)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Verify(old, []*x509.Certificate{l.noSigner.cert}); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("a list issued before its signer's certificate: %v", err)
	}
	if _, _, err := Verify([]byte(`<TrustServiceStatusList xmlns="http://uri.etsi.org/02231/v2#"/>`), []*x509.Certificate{l.noSigner.cert}); err == nil || !strings.Contains(err.Error(), "not signed") {
		t.Fatalf("an unsigned list: %v", err)
	}
}
