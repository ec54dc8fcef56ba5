package signature

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestFormatParses: what Format writes, Parse reads back as written, an
// issuer with non-ASCII characters included (B-encoded on the way).
func TestFormatParses(t *testing.T) {
	sig := bytes.Repeat([]byte{0xa5}, 256)
	for _, keyID := range []string{
		"SN=1a2b,CA=CN=Test QTSP,O=Test,C=NO",
		"SN=1a2b,CA=CN=Tëst QTSP,O=Bånk,C=NO",
	} {
		names := []string{"date", "digest", "x-request-id"}
		v := Format(keyID, AlgorithmRSASHA256, names, sig)
		ascii := !strings.ContainsFunc(keyID, func(r rune) bool { return r >= 0x80 })
		if encoded := strings.HasPrefix(v, "=?utf-8?b?"); encoded == ascii {
			t.Errorf("%q: value %q: B-encoded %v, want %v", keyID, v, encoded, !ascii)
		}
		p, err := Parse(v)
		if err != nil {
			t.Fatalf("%q: Parse(%q): %v", keyID, v, err)
		}
		if p.KeyID != keyID || p.Algorithm != AlgorithmRSASHA256 || !slices.Equal(p.Headers, names) || !bytes.Equal(p.Signature, sig) {
			t.Errorf("%q: read back as %+v", keyID, p)
		}
	}
	ec := bytes.Repeat([]byte{0x30}, 70)
	p, err := ParseSeal(Format("SN=1,CA=CN=x", AlgorithmECDSASHA256, []string{"date"}, ec))
	if err != nil || p.Algorithm != AlgorithmECDSASHA256 || !bytes.Equal(p.Signature, ec) {
		t.Errorf("ecdsa-sha256 read back as %+v, %v", p, err)
	}
	if _, err := Parse(Format("SN=1,CA=CN=x", AlgorithmECDSASHA256, []string{"date"}, bytes.Repeat([]byte{1}, 256))); err == nil {
		t.Error("a TPP's request signed ecdsa-sha256 parsed")
	}
}
