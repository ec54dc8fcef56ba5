package trustlist

import (
	"crypto/x509"
	"testing"
)

// FuzzParse: any bytes are read into a list or refused with an error,
// never a panic.
func FuzzParse(f *testing.F) {
	l := newTestLists(f)
	f.Add(l.lotl)
	f.Add(l.no)
	f.Add([]byte(`<TrustServiceStatusList xmlns="http://uri.etsi.org/02231/v2#"><SchemeInformation><TSLVersionIdentifier>5</TSLVersionIdentifier><SchemeTerritory>NO</SchemeTerritory><ListIssueDateTime>2026-01-01T00:00:00Z</ListIssueDateTime></SchemeInformation></TrustServiceStatusList>`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if list, err := Parse(raw); err == nil && list.Territory == "" {
			t.Fatal("a list without a territory was read")
		}
	})
}

// FuzzVerify: any bytes are verified or refused, never a panic, and
// nothing but the signed test lists verifies with their signer.
func FuzzVerify(f *testing.F) {
	l := newTestLists(f)
	f.Add(l.no)
	f.Add(l.lotl)
	signers := []*x509.Certificate{l.noSigner.cert}
	f.Fuzz(func(t *testing.T, raw []byte) {
		signed, by, err := Verify(raw, signers)
		if err == nil && (by == nil || len(signed) == 0) {
			t.Fatal("verified without a signer or content")
		}
	})
}
