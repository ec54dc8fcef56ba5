package tppclient

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
	"unicode/utf8"
)

// FuzzRFC2253 checks that any DER name either fails cleanly or renders as
// valid UTF-8 with exactly one unescaped ',' between RDNs, so an escaped
// value can never split a name.
func FuzzRFC2253(f *testing.F) {
	for _, seq := range []pkix.RDNSequence{
		{rdn(atv(oidC, "NO")), rdn(atv(oidO, "Test QTSP AS")), rdn(atv(oidCN, "Root, CA"))},
		{rdn(atv(oidCN, "a"), atv(oidUID, "b+c"))},
		{rdn(atv(oidOrganizationIdentifier, "PSDNO-FSA-987654321"))},
		{rdn(atv(asn1.ObjectIdentifier{1, 2, 3}, 7))},
	} {
		der, err := asn1.Marshal(seq)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(der)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		got, err := RFC2253(der)
		var seq pkix.RDNSequence
		rest, perr := asn1.Unmarshal(der, &seq)
		if err != nil {
			return
		}
		if !utf8.ValidString(got) {
			t.Fatalf("RFC2253 output %q is not UTF-8", got)
		}
		if perr != nil || len(rest) != 0 {
			return // encoding/asn1 reads the values more strictly than RawValue
		}
		commas := 0
		for i := 0; i < len(got); i++ {
			switch got[i] {
			case '\\':
				i++
			case ',':
				commas++
			}
		}
		if want := max(len(seq)-1, 0); commas != want {
			t.Fatalf("RFC2253 output %q has %d unescaped commas for %d RDNs", got, commas, len(seq))
		}
	})
}
