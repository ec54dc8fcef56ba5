package signature

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	v := newSignedRequest(b).signature
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRFC2047(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(bg2Encoded, appendixCSignatureLen, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseKeyIDMatches(b *testing.B) {
	r := newSignedRequest(b)
	p, err := Parse(r.signature)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		k, err := ParseKeyID(p.KeyID)
		if err != nil {
			b.Fatal(err)
		}
		if !k.Matches(r.cert) {
			b.Fatal("keyId does not match")
		}
	}
}

func BenchmarkAppendSigningString(b *testing.B) {
	r := newSignedRequest(b)
	p, err := Parse(r.signature)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = AppendSigningString(buf[:0], p.Headers, r.method, r.requestURI, r.header); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckCoverage(b *testing.B) {
	r := newSignedRequest(b)
	p, err := Parse(r.signature)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckCoverage(p.Headers, r.header, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRSAVerify2048 is the reference: one bare RSA-2048 PKCS#1 v1.5
// verification of a SHA-256 hash.
func BenchmarkRSAVerify2048(b *testing.B) {
	key := rsa2048(b)
	sum := sha256.Sum256([]byte("date: Sun, 05 Jan 2014 21:31:40 GMT"))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyRequest2048 is a whole warm-cache verification (the
// certificate already parsed and trusted): Parse, CheckCoverage,
// ParseKeyID, Matches, AppendSigningString and Verify. Compare with
// BenchmarkRSAVerify2048; the budget is 1.5 times that.
func BenchmarkVerifyRequest2048(b *testing.B) {
	r := newSignedRequest(b)
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = verifyRequest(r, buf); err != nil {
			b.Fatal(err)
		}
	}
}
