package pemfile

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
)

// TestPrivateKey: every container of every kind reads back as the key written,
// after a certificate block if one comes first; anything else is an error
// that says what was wanted.
func TestPrivateKey(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edk, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1, _ := x509.MarshalECPrivateKey(ek)
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})
	for name, c := range map[string]struct {
		pem  []byte
		want crypto.PublicKey
	}{
		"PKCS #8 RSA":         {pkcs8(rk), rk.Public()},
		"PKCS #8 P-256":       {pkcs8(ek), ek.Public()},
		"PKCS #8 Ed25519":     {pkcs8(edk), edk.Public()},
		"PKCS #1":             {pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}), rk.Public()},
		"SEC 1":               {pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), ek.Public()},
		"after a certificate": {append(cert, pkcs8(ek)...), ek.Public()},
	} {
		k, err := PrivateKey(c.pem)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !k.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(c.want) {
			t.Errorf("%s: another key read back", name)
		}
	}
	for name, in := range map[string][]byte{
		"no PEM":             []byte("not a key"),
		"a certificate only": cert,
		"a broken key":       pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{0x30, 1}}),
	} {
		if _, err := PrivateKey(in); err == nil || !(strings.Contains(err.Error(), "PRIVATE KEY")) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCertificates: every CERTIFICATE block, in order, other blocks
// skipped; none, or one that does not parse, is an error.
func TestCertificates(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var all []byte
	for i := range 2 {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 1))}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
		all = append(all, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}})...)
	}
	cs, err := Certificates(all)
	if err != nil || len(cs) != 2 || cs[0].SerialNumber.Int64() != 1 || cs[1].SerialNumber.Int64() != 2 {
		t.Fatalf("%v, %v", cs, err)
	}
	for name, in := range map[string][]byte{
		"no PEM":  []byte("x"),
		"no cert": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}),
		"broken":  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
	} {
		if _, err := Certificates(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
