package privatekey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

// TestParse: every container of every kind reads back as the key written,
// after a certificate block if one comes first; anything else is an error
// that says what was wanted.
func TestParse(t *testing.T) {
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
		k, err := Parse(c.pem)
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
		if _, err := Parse(in); err == nil || !(strings.Contains(err.Error(), "PRIVATE KEY")) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
