package signature

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
)

// rawSign is the RSA private operation on an arbitrary encoded message, so
// tests can make signatures over malformed encodings.
func rawSign(key *rsa.PrivateKey, em []byte) []byte {
	m := new(big.Int).SetBytes(em)
	return m.Exp(m, key.D, key.N).FillBytes(make([]byte, key.Size()))
}

// validEM is the one valid EMSA-PKCS1-v1_5 SHA-256 encoding of msg.
func validEM(size int, msg []byte) []byte {
	sum := sha256.Sum256(msg)
	em := []byte{0, 1}
	em = append(em, bytes.Repeat([]byte{0xff}, size-3-len(sha256DigestInfo)-len(sum))...)
	em = append(em, 0)
	em = append(em, sha256DigestInfo...)
	return append(em, sum[:]...)
}

// agree reports whether Key and crypto/rsa give the same verdict.
func agree(t testing.TB, key *rsa.PrivateKey, msg, sig []byte) (ok bool) {
	t.Helper()
	k, err := NewKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(msg)
	want := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig) == nil
	got := k.Verify(msg, sig) == nil
	if got != want {
		t.Fatalf("Key.Verify ok=%v, crypto/rsa ok=%v for signature %x", got, want, sig)
	}
	return got
}

func TestKeyAgreesWithCryptoRSA(t *testing.T) {
	key := rsa2048(t)
	msg := []byte("date: Sun, 05 Jan 2014 21:31:40 GMT\nx-request-id: 1")
	good := validEM(key.Size(), msg)
	if !agree(t, key, msg, rawSign(key, good)) {
		t.Fatal("the valid encoding does not verify")
	}
	mutate := func(f func(em []byte) []byte) []byte { return f(bytes.Clone(good)) }
	sha1Info := []byte{0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}
	bad := map[string][]byte{
		"block type 2":   mutate(func(em []byte) []byte { em[1] = 2; return em }),
		"padding byte":   mutate(func(em []byte) []byte { em[5] = 0xfe; return em }),
		"no separator":   mutate(func(em []byte) []byte { em[len(em)-52] = 0xff; return em }),
		"other hash":     validEM(key.Size(), append(msg, 'x')),
		"DigestInfo bit": mutate(func(em []byte) []byte { em[len(em)-40] ^= 1; return em }),
		"NULL parameters left out": mutate(func(em []byte) []byte {
			// The DigestInfo without its NULL, the padding one byte longer.
			info := []byte{0x30, 0x2f, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x04, 0x20}
			sum := sha256.Sum256(msg)
			out := []byte{0, 1}
			out = append(out, bytes.Repeat([]byte{0xff}, len(em)-3-len(info)-len(sum))...)
			out = append(append(append(out, 0), info...), sum[:]...)
			return out
		}),
		"SHA-1 DigestInfo": mutate(func(em []byte) []byte {
			sum := sha256.Sum256(msg)
			out := []byte{0, 1}
			out = append(out, bytes.Repeat([]byte{0xff}, len(em)-3-len(sha1Info)-20)...)
			out = append(append(append(out, 0), sha1Info...), sum[:20]...)
			return out
		}),
		"garbage after the hash": mutate(func(em []byte) []byte {
			copy(em[2:], em[3:len(em)-1-32+1])
			return em
		}),
	}
	for name, em := range bad {
		if agree(t, key, msg, rawSign(key, em)) {
			t.Errorf("%s: verified", name)
		}
	}
	// Signatures that are not below the modulus, zero and one.
	n := key.N.FillBytes(make([]byte, key.Size()))
	nPlus := new(big.Int).Add(key.N, big.NewInt(1)).FillBytes(make([]byte, key.Size()))
	one := big.NewInt(1).FillBytes(make([]byte, key.Size()))
	for name, sig := range map[string][]byte{"n": n, "n+1": nPlus, "zero": make([]byte, key.Size()), "one": one, "all ones": bytes.Repeat([]byte{0xff}, key.Size())} {
		if agree(t, key, msg, sig) {
			t.Errorf("signature %s verified", name)
		}
	}
}

func TestNewKeyRefusesUnusableKeys(t *testing.T) {
	key := rsa2048(t)
	for name, pub := range map[string]*rsa.PublicKey{
		"nil":           nil,
		"no modulus":    {E: 65537},
		"even exponent": {N: key.N, E: 65536},
		"exponent 1":    {N: key.N, E: 1},
		"huge exponent": {N: key.N, E: 1 << 40},
		"even modulus":  {N: new(big.Int).Lsh(key.N, 1), E: 65537},
		"tiny modulus":  {N: big.NewInt(3233), E: 17},
	} {
		if _, err := NewKey(pub); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzKeyMatchesCryptoRSA checks Key and crypto/rsa agree on arbitrary
// signatures under a fixed key (the committed test TPP's, so that every
// fuzz worker process has the same one and the seeds mean the same to all):
// the valid signature, malformed encodings signed with the raw private
// operation, and whatever the fuzzer makes of them. Each input costs two
// verifications, so a short campaign still runs many thousands.
func FuzzKeyMatchesCryptoRSA(f *testing.F) {
	key := committedKey(f)
	msg := []byte("x-request-id: 1")
	sum := sha256.Sum256(msg)
	valid, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(flip(valid))
	f.Add(valid[1:])
	good := validEM(key.Size(), msg)
	blockType2 := bytes.Clone(good)
	blockType2[1] = 2
	f.Add(rawSign(key, blockType2))
	noSeparator := bytes.Clone(good)
	noSeparator[len(good)-52] = 0xff
	f.Add(rawSign(key, noSeparator))
	f.Add(key.N.FillBytes(make([]byte, key.Size())))
	f.Fuzz(func(t *testing.T, sig []byte) {
		agree(t, key, msg, sig)
	})
}

// committedKey is the test TPP's QSealC key from testdata/pki.
func committedKey(tb testing.TB) *rsa.PrivateKey {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pki", "tpp-qseal-key.pem"))
	if err != nil {
		tb.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		tb.Fatal("tpp-qseal-key.pem holds no PEM block")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		tb.Fatal(err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		tb.Fatalf("tpp-qseal-key.pem holds a %T", k)
	}
	return rk
}

func BenchmarkKeyVerify2048(b *testing.B) {
	key := rsa2048(b)
	msg := []byte("date: x\nx-request-id: y")
	sig := rawSign(key, validEM(key.Size(), msg))
	k, _ := NewKey(&key.PublicKey)
	b.ReportAllocs()
	for b.Loop() {
		if err := k.Verify(msg, sig); err != nil {
			b.Fatal(err)
		}
	}
}
