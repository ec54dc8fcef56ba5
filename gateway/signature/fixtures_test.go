package signature

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"
)

// The draft-cavage Appendix C key pair (1024 bits, tests only), from
// /work/shared/reference/http-signature-vectors.md.
const (
	appendixCPublicKey = `-----BEGIN PUBLIC KEY-----
MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDCFENGw33yGihy92pDjZQhl0C3
6rPJj+CvfSC8+q28hxA161QFNUd13wuCTUcq0Qd2qsBe/2hFyc2DCJJg0h1L78+6
Z4UMR7EOcpfdUE9Hf3m/hs+FUR45uBJeDK1HSFHD8bHKD6kv8FPGfJTotc+2xjJw
oYi+1hqp1fIekaxsyQIDAQAB
-----END PUBLIC KEY-----`
	appendixCPrivateKey = `-----BEGIN RSA PRIVATE KEY-----
MIICXgIBAAKBgQDCFENGw33yGihy92pDjZQhl0C36rPJj+CvfSC8+q28hxA161QF
NUd13wuCTUcq0Qd2qsBe/2hFyc2DCJJg0h1L78+6Z4UMR7EOcpfdUE9Hf3m/hs+F
UR45uBJeDK1HSFHD8bHKD6kv8FPGfJTotc+2xjJwoYi+1hqp1fIekaxsyQIDAQAB
AoGBAJR8ZkCUvx5kzv+utdl7T5MnordT1TvoXXJGXK7ZZ+UuvMNUCdN2QPc4sBiA
QWvLw1cSKt5DsKZ8UETpYPy8pPYnnDEz2dDYiaew9+xEpubyeW2oH4Zx71wqBtOK
kqwrXa/pzdpiucRRjk6vE6YY7EBBs/g7uanVpGibOVAEsqH1AkEA7DkjVH28WDUg
f1nqvfn2Kj6CT7nIcE3jGJsZZ7zlZmBmHFDONMLUrXR/Zm3pR5m0tCmBqa5RK95u
412jt1dPIwJBANJT3v8pnkth48bQo/fKel6uEYyboRtA5/uHuHkZ6FQF7OUkGogc
mSJluOdc5t6hI1VsLn0QZEjQZMEOWr+wKSMCQQCC4kXJEsHAve77oP6HtG/IiEn7
kpyUXRNvFsDE0czpJJBvL/aRFUJxuRK91jhjC68sA7NsKMGg5OXb5I5Jj36xAkEA
gIT7aFOYBFwGgQAQkWNKLvySgKbAZRTeLBacpHMuQdl1DfdntvAyqpAZ0lY0RKmW
G6aFKaqQfOXKCyWoUiVknQJAXrlgySFci/2ueKlIE1QqIiLSZ8V8OlpFLRnb1pzI
7U1yQXnTAEFYM560yJlzUpOb1V4cScGd365tiSMvxLOvTA==
-----END RSA PRIVATE KEY-----`
)

var (
	oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidEmailAddress           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

func appendixCPublic(t testing.TB) *rsa.PublicKey {
	t.Helper()
	block, _ := pem.Decode([]byte(appendixCPublicKey))
	if block == nil {
		t.Fatal("no PEM block in the Appendix C public key")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return pub.(*rsa.PublicKey)
}

func appendixCPrivate(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	block, _ := pem.Decode([]byte(appendixCPrivateKey))
	if block == nil {
		t.Fatal("no PEM block in the Appendix C private key")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

var (
	rsa2048Once sync.Once
	rsa2048Key  *rsa.PrivateKey
)

// rsa2048 returns a 2048-bit key generated once per test binary.
func rsa2048(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	rsa2048Once.Do(func() {
		var err error
		if rsa2048Key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return rsa2048Key
}

// testIssuer is the subject of the test QTSP CA. Its organizationIdentifier
// sits in ExtraNames because pkix.Name has no field for it, and its OU
// holds a comma to exercise escaping.
func testIssuer() pkix.Name {
	return pkix.Name{
		Country:            []string{"NO"},
		Province:           []string{"Oslo"},
		Locality:           []string{"Oslo"},
		Organization:       []string{"Test QTSP Ø AS"},
		OrganizationalUnit: []string{"Trust Services, Norway"},
		CommonName:         "Test QTSP Root CA",
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: oidOrganizationIdentifier, Value: "NTRNO-123456789"},
			{Type: oidEmailAddress, Value: "ca@qtsp.example"},
		},
	}
}

// testSerial is the serial of the test leaf certificate, 1A2B3C4D5E6F.
var testSerial = big.NewInt(0x1A2B3C4D5E6F)

// testCertificate issues a leaf certificate for leafKey from a CA named
// testIssuer, both built with crypto/x509 and parsed back.
func testCertificate(t testing.TB, leafKey *rsa.PublicKey) (leaf, ca *x509.Certificate) {
	t.Helper()
	caKey := appendixCPrivate(t)
	notBefore := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               testIssuer(),
		NotBefore:             notBefore,
		NotAfter:              notBefore.AddDate(10, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		t.Fatal(err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: testSerial,
		Subject: pkix.Name{
			Country:      []string{"NO"},
			Organization: []string{"Test TPP AS"},
			CommonName:   "Test TPP AS",
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-987654321"}},
		},
		NotBefore: notBefore,
		NotAfter:  notBefore.AddDate(2, 0, 0),
		KeyUsage:  x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, ca, leafKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if leaf, err = x509.ParseCertificate(leafDER); err != nil {
		t.Fatal(err)
	}
	return leaf, ca
}

// formatDN writes d in RFC 4514 syntax with dotted OIDs, escaping every
// character that could be read as syntax, for round-trip checks.
func formatDN(d DN) string {
	var b strings.Builder
	for i, a := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.Type.String())
		b.WriteByte('=')
		for j := 0; j < len(a.Value); j++ {
			c := a.Value[j]
			switch c {
			case '%': // ParseDN percent-decodes before unescaping
				b.WriteString(`\25`)
				continue
			case ',', '+', '"', '\\', '<', '>', ';', '=', '#', ' ':
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
