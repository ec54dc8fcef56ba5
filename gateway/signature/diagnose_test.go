package signature

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"net/http"
	"strings"
	"testing"
)

// TestFormatDN: a certificate name is written last RDN first, with the
// names of this dialect, RFC 4514 escapes, and control characters as hex.
func TestFormatDN(t *testing.T) {
	names := []pkix.AttributeTypeAndValue{
		{Type: asn1.ObjectIdentifier{2, 5, 4, 6}, Value: "NO"},
		{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: "Bank, Inc."},
		{Type: oidOrganizationIdentifier, Value: "NTRNO-123456789"},
		{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: " CA\r\n#1 "},
		{Type: asn1.ObjectIdentifier{1, 2, 3}, Value: "x+y"},
	}
	want := `1.2.3=x\+y,CN=\ CA\0D\0A#1\ ,organizationIdentifier=NTRNO-123456789,O=Bank\, Inc.,C=NO`
	if got := FormatDN(names); got != want {
		t.Fatalf("FormatDN\n got %s\nwant %s", got, want)
	}
	// What FormatDN writes, ParseDN reads back as the same name.
	dn, err := ParseDN(FormatDN(names[:3]))
	if err != nil || !dn.equalNames(names[:3]) {
		t.Fatalf("round trip: %v %v", dn, err)
	}
}

// TestKeyIDForMatches: the keyId KeyIDFor writes identifies the
// certificate, so a TPP may copy it from a diagnostic text.
func TestKeyIDForMatches(t *testing.T) {
	for _, c := range []*x509.Certificate{newSignedRequest(t).cert} {
		k, err := ParseKeyID(KeyIDFor(c))
		if err != nil || !k.Matches(c) || k.Mismatch(c) != "" {
			t.Fatalf("%s: %v", KeyIDFor(c), err)
		}
	}
}

// TestMismatch names the part of a keyId at fault.
func TestMismatch(t *testing.T) {
	cert := newSignedRequest(t).cert
	issuer := FormatDN(cert.Issuer.Names)
	for _, tt := range []struct{ keyID, want string }{
		{"SN=" + cert.SerialNumber.Text(16) + "0,CA=" + issuer, "its SN " + strings.ToUpper(cert.SerialNumber.Text(16)) + "0 is not the certificate's serial number"},
		{"SN=" + cert.SerialNumber.Text(10) + ",CA=" + issuer, "(you wrote the serial number in decimal; write it in hex)"},
		{"SN=" + cert.SerialNumber.Text(16) + ",CA=" + FormatDN(cert.Subject.Names), "(it names the certificate's subject;"},
		{"SN=" + cert.SerialNumber.Text(16) + ",CA=" + issuer + ",OU=Extra", "(the certificate's issuer has no OU=Extra)"},
		{"SN=" + cert.SerialNumber.Text(16) + ",CA=CN=Test TPP AS,O=Test TPP AS,C=NO", "(CN=Test TPP AS,O=Test TPP AS are the certificate's subject's, not its issuer's; CA is the DN of the CA that issued the certificate)"},
	} {
		k, err := ParseKeyID(tt.keyID)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Mismatch(cert); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q lacks %q", tt.keyID, got, tt.want)
		}
	}
}

// TestUncoveredHeaders lists every header missing, not only the first.
func TestUncoveredHeaders(t *testing.T) {
	h := http.Header{"Digest": {"x"}, "Psu-Id": {"x"}, "Tpp-Redirect-Uri": {"x"}}
	got := UncoveredHeaders([]string{"digest"}, h, true)
	var names []string
	for _, u := range got {
		names = append(names, u.Name)
	}
	if strings.Join(names, " ") != "(request-target) date x-request-id psu-id tpp-redirect-uri" {
		t.Fatalf("%+v", got)
	}
	if got := UncoveredHeaders([]string{"date", "x-request-id", "digest", "psu-id", "tpp-redirect-uri"}, h, false); got != nil {
		t.Fatalf("%+v", got)
	}
}

// TestRecover: what a signature holds under the key: the hash signed and
// its algorithm, nothing for another key.
func TestRecover(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("date: x")
	s256 := sha256.Sum256(msg)
	s512 := sha512.Sum512(msg)
	for _, tt := range []struct {
		hash crypto.Hash
		sum  []byte
	}{{crypto.SHA256, s256[:]}, {crypto.SHA512, s512[:]}} {
		sig, _ := rsa.SignPKCS1v15(rand.Reader, key, tt.hash, tt.sum)
		if got := k.Recover(sig); got.Hash != tt.hash || string(got.Sum) != string(tt.sum) {
			t.Errorf("%v: %+v", tt.hash, got)
		}
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	sig, _ := rsa.SignPKCS1v15(rand.Reader, other, crypto.SHA256, s256[:])
	if got := k.Recover(sig); got.Hash != 0 || got.Sum != nil {
		t.Errorf("another key: %+v", got)
	}
	if got := k.Recover(sig[1:]); got.Hash != 0 {
		t.Errorf("short: %+v", got)
	}
	if got := k.Recover(new(big.Int).Add(key.N, big.NewInt(1)).Bytes()); got.Hash != 0 {
		t.Errorf("above the modulus: %+v", got)
	}
}

// TestExplainDifference recognises each mistake and nothing else.
func TestExplainDifference(t *testing.T) {
	h := http.Header{"Date": {"Sun, 22 Nov 2026 10:00:00 GMT"}, "X-Request-Id": {"r"}, "Psu-Id": {"p"}}
	in := SigningInput{Headers: []string{RequestTarget, "x-request-id", "date", "psu-id"}, Method: "GET", Target: "/a/v1/x", OtherTarget: "/v1/x", Header: h}
	lines := []string{"(request-target): get /a/v1/x", "x-request-id: r", "date: Sun, 22 Nov 2026 10:00:00 GMT", "psu-id: p"}
	sum := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	for _, tt := range []struct{ signed, want string }{
		{strings.Join(lines, "\n") + "\n", "final newline"},
		{strings.Join(lines, "\r\n"), "CRLF"},
		{"(request-target): get /a/v1/x\nX-Request-Id: r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\nPsu-Id: p", "as sent (Date:)"},
		{"(request-target):get /a/v1/x\nx-request-id:r\ndate:Sun, 22 Nov 2026 10:00:00 GMT\npsu-id:p", "no space after the colons"},
		{strings.Join(lines[1:], "\n"), "without the (request-target) line"},
		{strings.Join([]string{lines[0], lines[2], lines[3], lines[1]}, "\n"), "alphabetical order"},
		{strings.Replace(strings.Join(lines, "\n"), " get ", " GET ", 1), "method in upper case"},
		{strings.Replace(strings.Join(lines, "\n"), "/a/v1/x", "/v1/x", 1), "for /v1/x (without the base path)"},
		{strings.Replace(strings.Join(lines, "\n"), "psu-id: p", "psu-id: q", 1), ""},
	} {
		if got := ExplainDifference(sum(tt.signed), in); tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.signed, got, tt.want)
		}
	}
}
