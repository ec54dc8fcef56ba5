//go:build cgo && !obgw_purego

package opensslkey

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"math/big"
	"os"
	"sync"
	"testing"

	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/testpki"
)

// ecKey is a P-256 key made once per test binary.
var ecKey = sync.OnceValue(func() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
})

// checkECDSA fails unless sig is a DER ECDSA-Sig-Value of r and s in
// [1, n-1], in the one encoding crypto/ecdsa writes, that crypto/ecdsa
// verifies over digest with pub, and that it refuses over another digest.
func checkECDSA(t *testing.T, pub *ecdsa.PublicKey, digest, sig []byte) {
	t.Helper()
	var rs struct{ R, S *big.Int }
	rest, err := asn1.Unmarshal(sig, &rs)
	if err != nil || len(rest) != 0 {
		t.Fatalf("not one DER SEQUENCE of two INTEGERs: %v", err)
	}
	n := elliptic.P256().Params().N
	for _, v := range []*big.Int{rs.R, rs.S} {
		if v.Sign() <= 0 || v.Cmp(n) >= 0 {
			t.Fatal("r or s out of [1, n-1]")
		}
	}
	if again, _ := asn1.Marshal(rs); !bytes.Equal(again, sig) {
		t.Fatal("not the DER encoding crypto/ecdsa writes of r and s")
	}
	if !ecdsa.VerifyASN1(pub, digest, sig) {
		t.Fatal("crypto/ecdsa does not verify OpenSSL's signature")
	}
	other := bytes.Clone(digest)
	other[0] ^= 1
	if ecdsa.VerifyASN1(pub, other, sig) {
		t.Fatal("OpenSSL's signature verifies over another digest")
	}
}

// TestECDSASignaturesAreCryptoECDSAs: ECDSA signatures are not unique, so
// OpenSSL's are held to what crypto/ecdsa accepts: for the repository's
// P-256 seal key read as the gateway reads it and a fresh key, every
// signature of 20 digests is a DER value crypto/ecdsa verifies (and not
// over another digest); two signatures of one digest differ (OpenSSL 3.0
// draws each nonce) and both verify.
func TestECDSASignaturesAreCryptoECDSAs(t *testing.T) {
	keyPEM, err := os.ReadFile("../testdata/pki/" + testpki.FileBankSealECKey)
	if err != nil {
		t.Fatal(err)
	}
	seal, err := pemfile.PrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*ecdsa.PrivateKey{seal.(*ecdsa.PrivateKey), ecKey()} {
		ok, err := NewECDSA(k)
		if err != nil {
			t.Fatal(err)
		}
		if !k.PublicKey.Equal(ok.Public()) {
			t.Fatal("Public is not the key's public half")
		}
		for i := range 20 {
			digest := sha256.Sum256([]byte{byte(i)})
			sig, err := ok.Sign(nil, digest[:], crypto.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			checkECDSA(t, &k.PublicKey, digest[:], sig)
			again, err := ok.Sign(rand.Reader, digest[:], crypto.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			checkECDSA(t, &k.PublicKey, digest[:], again)
			if bytes.Equal(sig, again) {
				t.Fatalf("digest %d signed twice with one nonce", i)
			}
		}
	}
}

// FuzzECDSASignaturesAreCryptoECDSAs: OpenSSL signs any 32 bytes so that
// crypto/ecdsa verifies it, and refuses any other length.
func FuzzECDSASignaturesAreCryptoECDSAs(f *testing.F) {
	k := ecKey()
	ok, err := NewECDSA(k)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, digest []byte) {
		sig, err := ok.Sign(nil, digest, crypto.SHA256)
		if len(digest) != 32 {
			if err == nil || sig != nil {
				t.Fatalf("a %d-byte digest was signed", len(digest))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkECDSA(t, &k.PublicKey, digest, sig)
	})
}

// TestECDSASignsOnlySHA256: another hash or a digest of the wrong length
// is refused, never signed as something else; a key on another curve, or
// none, is not taken.
func TestECDSASignsOnlySHA256(t *testing.T) {
	ok, err := NewECDSA(ecKey())
	if err != nil {
		t.Fatal(err)
	}
	d256 := sha256.Sum256([]byte("x"))
	d512 := sha512.Sum512([]byte("x"))
	for name, call := range map[string]func() ([]byte, error){
		"SHA-512":        func() ([]byte, error) { return ok.Sign(nil, d512[:], crypto.SHA512) },
		"no hash":        func() ([]byte, error) { return ok.Sign(nil, d256[:], crypto.Hash(0)) },
		"nil opts":       func() ([]byte, error) { return ok.Sign(nil, d256[:], nil) },
		"short digest":   func() ([]byte, error) { return ok.Sign(nil, d256[:31], crypto.SHA256) },
		"SHA-512 digest": func() ([]byte, error) { return ok.Sign(nil, d512[:], crypto.SHA256) },
	} {
		if sig, err := call(); err == nil || sig != nil {
			t.Errorf("%s: signed (%d bytes)", name, len(sig))
		}
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewECDSA(p384); err == nil {
		t.Error("a P-384 key was taken")
	}
	if _, err := NewECDSA(nil); err == nil {
		t.Error("a nil key was taken")
	}
}

// TestECDSAConcurrentSigning: one key signs from many goroutines at once,
// each signature one crypto/ecdsa verifies.
func TestECDSAConcurrentSigning(t *testing.T) {
	k := ecKey()
	ok, err := NewECDSA(k)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				digest := sha256.Sum256([]byte{byte(g), byte(i)})
				sig, err := ok.Sign(nil, digest[:], crypto.SHA256)
				if err != nil || !ecdsa.VerifyASN1(&k.PublicKey, digest[:], sig) {
					t.Errorf("goroutine %d, signature %d: %v", g, i, err)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSignP256 against BenchmarkCryptoECDSASignP256: the P-256
// seal's signature through OpenSSL and through crypto/ecdsa (RFC 6979, as
// the seal signs without OpenSSL).
func BenchmarkSignP256(b *testing.B) {
	ok, err := NewECDSA(ecKey())
	if err != nil {
		b.Fatal(err)
	}
	d := sha256.Sum256([]byte("x"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ok.Sign(nil, d[:], crypto.SHA256); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCryptoECDSASignP256(b *testing.B) {
	k := ecKey()
	d := sha256.Sum256([]byte("x"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Sign(nil, d[:], crypto.SHA256); err != nil {
			b.Fatal(err)
		}
	}
}
