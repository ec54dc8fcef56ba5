package digest

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"testing"
)

func BenchmarkParseVerify1KiB(b *testing.B) {
	body := make([]byte, 1024)
	rand.Read(body)
	s256 := sha256.Sum256(body)
	s512 := sha512.Sum512(body)
	for _, bm := range []struct {
		name, value string
	}{
		{"SHA-256", "SHA-256=" + base64.StdEncoding.EncodeToString(s256[:])},
		{"SHA-512", "SHA-512=" + base64.StdEncoding.EncodeToString(s512[:])},
		{"both", "SHA-256=" + base64.StdEncoding.EncodeToString(s256[:]) + ", SHA-512=" + base64.StdEncoding.EncodeToString(s512[:])},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				d, err := Parse(bm.value)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Verify(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	v := "SHA-256=" + helloSHA256
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(v); err != nil {
			b.Fatal(err)
		}
	}
}
