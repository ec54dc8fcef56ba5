package eidas

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
)

func crlPEM(crl *x509.RevocationList) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: crl.Raw})
}

func certPEM(c *x509.Certificate) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
}

// issueWithKey issues a QSealC profile for the given public key.
func issueWithKey(t *testing.T, p *testpki.PKI, pub any) *x509.Certificate {
	t.Helper()
	tmpl, err := sealProfileFor(p).Template()
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Issuing.Issue(tmpl, pub)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sealProfileFor(p *testpki.PKI) testpki.CertificateProfile {
	tpp := p.TPP("tpp")
	return testpki.CertificateProfile{
		Kind:                   testpki.Seal,
		Name:                   tpp.Name,
		OrganizationIdentifier: tpp.OrganizationIdentifier,
		Roles:                  tpp.Roles,
		NotBefore:              time.Now().Add(-time.Hour),
		NotAfter:               time.Now().Add(24 * time.Hour),
	}
}

func TestParseCertificate(t *testing.T) {
	p := testPKI(t)
	tpp := mustTPP(t, p, "tpp")
	der := tpp.Seal.Certificate.Raw
	b64 := base64.StdEncoding.EncodeToString(der)
	pemText := certPEM(tpp.Seal.Certificate)
	wrapped := func(s string, n int, sep string) string {
		var b strings.Builder
		for i := 0; i < len(s); i += n {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(s[i:min(i+n, len(s))])
		}
		return b.String()
	}
	other := mustTPP(t, p, "aisp").Seal.Certificate

	key1024, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsa1024 := base64.StdEncoding.EncodeToString(issueWithKey(t, p, &key1024.PublicKey).Raw)
	ec := base64.StdEncoding.EncodeToString(issueWithKey(t, p, &ecKey.PublicKey).Raw)

	tests := []struct {
		name   string
		in     string
		wantOK bool
	}{
		{"base64 DER", b64, true},
		{"PEM with newlines", pemText, true},
		{"PEM with CRLF", strings.ReplaceAll(pemText, "\n", "\r\n"), true},
		{"PEM on one line with spaces", strings.ReplaceAll(strings.TrimSpace(pemText), "\n", " "), true},
		{"PEM armour without line breaks", "-----BEGIN CERTIFICATE-----" + b64 + "-----END CERTIFICATE-----", true},
		{"base64 folded at 64 with newlines", wrapped(b64, 64, "\n"), true},
		{"base64 folded with spaces and tabs", wrapped(b64, 76, " \t"), true},
		{"surrounding whitespace", "  \n" + b64 + "\n\t ", true},
		{"base64 without padding", strings.TrimRight(b64, "="), true},
		{"RSA-3072", mustTPP(t, p, "rsa3072").Seal.HeaderValue(), true},
		{"RSA-4096", mustTPP(t, p, "rsa4096").Seal.HeaderValue(), true},
		{"empty", "", false},
		{"whitespace only", " \t ", false},
		{"armour only", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----", false},
		{"two PEM certificates", pemText + certPEM(other), false},
		{"PEM followed by junk", pemText + "junk", false},
		{"PEM without END", "-----BEGIN CERTIFICATE-----\n" + b64, false},
		{"private key PEM", "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----", false},
		{"raw base64 followed by PEM", b64 + "\n" + pemText, false},
		{"two DER certificates concatenated", base64.StdEncoding.EncodeToString(append(append([]byte{}, der...), other.Raw...)), false},
		{"DER with trailing byte", base64.StdEncoding.EncodeToString(append(append([]byte{}, der...), 0)), false},
		{"URL-safe alphabet", base64.URLEncoding.EncodeToString(der), !strings.ContainsAny(b64, "+/")},
		{"not base64", "%%%" + b64, false},
		{"base64 of garbage", base64.StdEncoding.EncodeToString([]byte("hello world, not a cert")), false},
		{"over 16 KiB", b64 + strings.Repeat(" ", MaxCertificateHeaderSize-len(b64)+1), false},
		{"exactly 16 KiB", b64 + strings.Repeat(" ", MaxCertificateHeaderSize-len(b64)), true},
		{"RSA-1024", rsa1024, false},
		{"ECDSA P-256", ec, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCertificate(tt.in)
			if !tt.wantOK {
				if err == nil {
					t.Fatal("ParseCertificate succeeded, want error")
				}
				if KindOf(err) != KindInvalid {
					t.Errorf("kind = %v, want KindInvalid", KindOf(err))
				}
				if len(err.Error()) > 200 || strings.Contains(err.Error(), b64[:40]) {
					t.Errorf("error text too long or echoes the certificate: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCertificate: %v", err)
			}
			if tt.name == "base64 DER" && string(c.Raw) != string(der) {
				t.Error("parsed certificate differs from the input DER")
			}
		})
	}
}

func TestCheckKeyBounds(t *testing.T) {
	bitsKey := func(bits int) *rsa.PublicKey {
		return &rsa.PublicKey{N: new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), E: 65537}
	}
	tests := []struct {
		bits   int
		wantOK bool
	}{{1024, false}, {2047, false}, {2048, true}, {3072, true}, {4096, true}, {4097, false}, {8192, false}}
	for _, tt := range tests {
		err := checkKey(&x509.Certificate{PublicKey: bitsKey(tt.bits)})
		if (err == nil) != tt.wantOK {
			t.Errorf("checkKey(%d bits) = %v, want ok=%v", tt.bits, err, tt.wantOK)
		}
	}
	if err := checkKey(&x509.Certificate{}); err == nil {
		t.Error("checkKey(no key) succeeded")
	}
}
