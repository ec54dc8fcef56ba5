package tppclient

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"sync"
	"testing"
	"time"
)

var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

var (
	testKeysOnce sync.Once
	testKeys     [3]*rsa.PrivateKey
)

// testKey returns one of three 2048-bit keys made once per test binary.
func testKey(t testing.TB, i int) *rsa.PrivateKey {
	t.Helper()
	testKeysOnce.Do(func() {
		for j := range testKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			testKeys[j] = k
		}
	})
	return testKeys[i]
}

func appendixCKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	b, _ := pem.Decode([]byte(appendixCPrivateKey))
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// certSpec describes a test certificate; a nil parent makes it self-signed.
type certSpec struct {
	serial     *big.Int
	subject    pkix.Name
	key        *rsa.PrivateKey
	parent     *x509.Certificate
	parentKey  *rsa.PrivateKey
	isCA       bool
	clientAuth bool
}

func makeCert(t testing.TB, s certSpec) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber:          s.serial,
		Subject:               s.subject,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
		IsCA:                  s.isCA,
	}
	if s.isCA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	if s.clientAuth {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	parent, parentKey := tmpl, s.key
	if s.parent != nil {
		parent, parentKey = s.parent, s.parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &s.key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// testPKI is a QTSP CA with organizationIdentifier in its name and a
// QSealC-like leaf issued by it.
type testPKI struct {
	ca, leaf       *x509.Certificate
	caKey, leafKey *rsa.PrivateKey
}

func newTestPKI(t testing.TB) testPKI {
	caKey, leafKey := testKey(t, 0), testKey(t, 1)
	ca := makeCert(t, certSpec{
		serial: big.NewInt(1),
		subject: pkix.Name{
			Country:      []string{"NO"},
			Organization: []string{"Test QTSP AS"},
			CommonName:   "Test QTSP Issuing CA, Norway",
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "NTRNO-987654321"}},
		},
		key:  caKey,
		isCA: true,
	})
	leaf := makeCert(t, certSpec{
		serial: big.NewInt(0x00abcdef0123),
		subject: pkix.Name{
			Country:      []string{"NO"},
			Organization: []string{"Test TPP AS"},
			CommonName:   "tpp.example.no",
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-987654321"}},
		},
		key:        leafKey,
		parent:     ca,
		parentKey:  caKey,
		clientAuth: true,
	})
	return testPKI{ca: ca, leaf: leaf, caKey: caKey, leafKey: leafKey}
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}
