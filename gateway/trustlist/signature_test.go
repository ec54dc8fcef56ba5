package trustlist

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/pemfile"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pemCerts(t testing.TB, name string) []*x509.Certificate {
	t.Helper()
	cs, err := pemfile.Certificates(readTestdata(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestRealLists: the EU LOTL (seq 386, TSLVersionIdentifier 6, signed
// with RSA-SHA512) verifies with the signing certificates published in
// the Official Journal (OJ C/2026/1944), and Norway's list (seq 87,
// version 5) with the certificates the LOTL names for Norway; each is
// read from its signed content. Changed content, or another signer's
// certificates, are refused.
func TestRealLists(t *testing.T) {
	lotlRaw := readTestdata(t, "real/eu-lotl.xml")
	signed, by, err := Verify(lotlRaw, PublishedSigners())
	if err != nil {
		t.Fatal(err)
	}
	if by == nil || !strings.Contains(by.Subject.String(), "EUROPEAN COMMISSION") {
		t.Fatalf("signed by %v", by)
	}
	lotl, err := Parse(signed)
	if err != nil {
		t.Fatal(err)
	}
	if lotl.Territory != "EU" || lotl.Sequence != 386 || lotl.Version != 6 ||
		!lotl.Issued.Equal(time.Date(2026, 4, 28, 21, 59, 59, 0, time.UTC)) || !lotl.NextUpdate.Equal(time.Date(2026, 10, 21, 13, 10, 30, 0, time.UTC)) {
		t.Fatalf("LOTL %s seq %d v%d issued %v next %v", lotl.Territory, lotl.Sequence, lotl.Version, lotl.Issued, lotl.NextUpdate)
	}
	if len(lotl.SchemeURIs) == 0 || lotl.SchemeURIs[0] != PublishedNotice {
		t.Fatalf("the LOTL's first SchemeInformationURI %v, want the pinned signers' notice %s", lotl.SchemeURIs, PublishedNotice)
	}
	var no *Pointer
	xml := 0
	for i, p := range lotl.Pointers {
		if p.MimeType == MimeTypeTSL {
			xml++
		}
		if p.Territory == "NO" && p.MimeType == MimeTypeTSL {
			no = &lotl.Pointers[i]
		}
	}
	if xml != 32 || no == nil || no.Location != "https://nkom.no/files/TL/NO_TL.xml" || len(no.Signers) != 2 {
		t.Fatalf("%d machine-readable pointers; Norway's: %+v", xml, no)
	}
	for i, c := range pemCerts(t, "real/no-tl-signer-0.pem") {
		if !c.Equal(no.Signers[0]) {
			t.Fatalf("Norway's signer %d is not the one in testdata", i)
		}
	}

	noRaw := readTestdata(t, "real/TSL_NO.xml")
	signedNO, _, err := Verify(noRaw, no.Signers)
	if err != nil {
		t.Fatal(err)
	}
	list, err := Parse(signedNO)
	if err != nil {
		t.Fatal(err)
	}
	if list.Territory != "NO" || list.Sequence != 87 || list.Version != 5 {
		t.Fatalf("Norway's list: %s seq %d v%d", list.Territory, list.Sequence, list.Version)
	}
	seals := map[string]bool{}
	for _, s := range list.Services {
		if cur := s.History[0]; cur.Type == ServiceTypeCAQC && cur.Status == StatusGranted && contains(cur.Uses, ForESeals) {
			seals[s.Name] = true
		}
	}
	if len(seals) != 5 {
		t.Fatalf("%d granted seal CAs in Norway's list, want 5 (Buypass and Commfides): %v", len(seals), seals)
	}

	// Norway's qualified CAs come out trusted for what they are granted,
	// judged while the list was current: a certificate each issued in
	// 2025 (a leaf made here, under the real CA certificate).
	when := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	anchors := NewAnchors([]*List{list}, 7*24*time.Hour, func() time.Time { return when })
	leafOf := func(ca *x509.Certificate) *x509.Certificate {
		return &x509.Certificate{NotBefore: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Issuer: ca.Subject, RawIssuer: ca.RawSubject}
	}
	trusted := map[Use]int{}
	for _, svc := range list.Services {
		cur := svc.History[0]
		if cur.Type != ServiceTypeCAQC || cur.Status != StatusGranted || len(svc.Certificates) == 0 {
			continue
		}
		for _, use := range []Use{UseSeal, UseWeb} {
			err := anchors.Qualified([]*x509.Certificate{leafOf(svc.Certificates[0]), svc.Certificates[0]}, use)
			if granted := contains(cur.Uses, string(use)); granted != (err == nil) {
				t.Fatalf("%s for %s: granted %v, decided %v", svc.Name, use, granted, err)
			} else if granted {
				trusted[use]++
			}
		}
	}
	if trusted[UseSeal] != 5 || trusted[UseWeb] == 0 {
		t.Fatalf("Norway's CAs trusted for seals %d (want 5), for websites %d", trusted[UseSeal], trusted[UseWeb])
	}

	// Changed content: refused.
	tampered := bytes.Replace(noRaw, []byte("<TSLSequenceNumber>87<"), []byte("<TSLSequenceNumber>88<"), 1)
	if bytes.Equal(tampered, noRaw) {
		t.Fatal("the sequence number was not found to change")
	}
	if _, _, err := Verify(tampered, no.Signers); err == nil {
		t.Fatal("a changed list verified")
	}
	// Norway's list with the LOTL's signers, the LOTL with Norway's.
	if _, _, err := Verify(noRaw, PublishedSigners()); err == nil {
		t.Fatal("Norway's list verified with the LOTL's signers")
	}
	if _, _, err := Verify(lotlRaw, no.Signers); err == nil {
		t.Fatal("the LOTL verified with Norway's signers")
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestPublishedSigners: the embedded LOTL signers are the six whose
// SHA-256 digests the Official Journal notice publishes.
func TestPublishedSigners(t *testing.T) {
	want := map[string]bool{}
	for _, prefix := range []string{"d2064fdd", "e0a620fb", "c0641c4f", "df7e2936", "b63d4167", "236103f0"} {
		want[prefix] = true
	}
	signers := PublishedSigners()
	if len(signers) != 6 {
		t.Fatalf("%d signers, want 6", len(signers))
	}
	for _, c := range signers {
		sum := sha256.Sum256(c.Raw)
		if !want[hex.EncodeToString(sum[:4])] {
			t.Fatalf("%s (%x) is not among the published digests", c.Subject, sum[:4])
		}
	}
}
