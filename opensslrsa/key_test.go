//go:build cgo && !obgw_purego

package opensslrsa

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"os"
	"sync"
	"testing"

	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/testpki"
)

// keys are the RSA key sizes the seal admits (2048 bits and more), made
// once per test binary.
var keys = sync.OnceValue(func() []*rsa.PrivateKey {
	var out []*rsa.PrivateKey
	for _, bits := range []int{2048, 3072, 4096} {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			panic(err)
		}
		out = append(out, k)
	}
	return out
})

// TestSignaturesAreCryptoRSAs: OpenSSL's signature of a digest is, byte
// for byte, crypto/rsa's (PKCS #1 v1.5 has one correct signature), for
// each key size and for the repository's RSA seal key read as the
// gateway reads it; and crypto/rsa verifies it.
func TestSignaturesAreCryptoRSAs(t *testing.T) {
	keyPEM, err := os.ReadFile("../testdata/pki/" + testpki.FileBankSealKey)
	if err != nil {
		t.Fatal(err)
	}
	seal, err := pemfile.PrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]*rsa.PrivateKey{seal.(*rsa.PrivateKey)}, keys()...)
	for _, k := range all {
		ok, err := New(k)
		if err != nil {
			t.Fatal(err)
		}
		if !k.PublicKey.Equal(ok.Public()) {
			t.Fatal("Public is not the key's public half")
		}
		for i := range 20 {
			digest := sha256.Sum256([]byte{byte(i), byte(k.N.BitLen())})
			want, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest[:])
			if err != nil {
				t.Fatal(err)
			}
			got, err := ok.Sign(nil, digest[:], crypto.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d-bit key, digest %d: OpenSSL's signature differs from crypto/rsa's", k.N.BitLen(), i)
			}
			if err := rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digest[:], got); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// FuzzSignaturesAreCryptoRSAs holds OpenSSL's signature of any 32 bytes
// to crypto/rsa's.
func FuzzSignaturesAreCryptoRSAs(f *testing.F) {
	k := keys()[0]
	ok, err := New(k)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(make([]byte, 32))
	f.Add(bytes.Repeat([]byte{0xff}, 32))
	f.Fuzz(func(t *testing.T, digest []byte) {
		want, werr := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest)
		got, gerr := ok.Sign(nil, digest, crypto.SHA256)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%d-byte digest: crypto/rsa says %v, OpenSSL %v", len(digest), werr, gerr)
		}
		if !bytes.Equal(got, want) {
			t.Fatal("OpenSSL's signature differs from crypto/rsa's")
		}
	})
}

// TestSignsOnlyPKCS1v15SHA256: another hash, PSS, or a digest of the wrong
// length is refused, never signed as something else.
func TestSignsOnlyPKCS1v15SHA256(t *testing.T) {
	ok, err := New(keys()[0])
	if err != nil {
		t.Fatal(err)
	}
	d256 := sha256.Sum256([]byte("x"))
	d512 := sha512.Sum512([]byte("x"))
	for name, call := range map[string]func() ([]byte, error){
		"SHA-512":        func() ([]byte, error) { return ok.Sign(nil, d512[:], crypto.SHA512) },
		"no hash":        func() ([]byte, error) { return ok.Sign(nil, d256[:], crypto.Hash(0)) },
		"nil opts":       func() ([]byte, error) { return ok.Sign(nil, d256[:], nil) },
		"PSS":            func() ([]byte, error) { return ok.Sign(nil, d256[:], &rsa.PSSOptions{Hash: crypto.SHA256}) },
		"short digest":   func() ([]byte, error) { return ok.Sign(nil, d256[:31], crypto.SHA256) },
		"SHA-512 digest": func() ([]byte, error) { return ok.Sign(nil, d512[:], crypto.SHA256) },
	} {
		if sig, err := call(); err == nil || sig != nil {
			t.Errorf("%s: signed (%d bytes)", name, len(sig))
		}
	}
}

// TestRefusesMultiPrimeKeys: a key of three primes is refused, not
// half-copied.
func TestRefusesMultiPrimeKeys(t *testing.T) {
	//lint:ignore SA1019 a three-prime key is the case refused here
	k, err := rsa.GenerateMultiPrimeKey(rand.Reader, 3, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(k); err == nil {
		t.Fatal("a three-prime key was taken")
	}
	if _, err := New(nil); err == nil {
		t.Fatal("a nil key was taken")
	}
}

// TestConcurrentSigning: one key signs from many goroutines at once, each
// signature crypto/rsa's.
func TestConcurrentSigning(t *testing.T) {
	k := keys()[0]
	ok, err := New(k)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				digest := sha256.Sum256([]byte{byte(g), byte(i)})
				want, _ := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest[:])
				got, err := ok.Sign(nil, digest[:], crypto.SHA256)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("goroutine %d, signature %d: %v", g, i, err)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSign2048 against BenchmarkCryptoRSASign2048: the seal's
// signature through OpenSSL and through crypto/rsa.
func BenchmarkSign2048(b *testing.B) {
	ok, err := New(keys()[0])
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

func BenchmarkCryptoRSASign2048(b *testing.B) {
	k := keys()[0]
	d := sha256.Sum256([]byte("x"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, d[:]); err != nil {
			b.Fatal(err)
		}
	}
}
