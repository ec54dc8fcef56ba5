//go:build !cgo || obgw_purego

package opensslkey

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"testing"
)

// TestNewFailsWithoutOpenSSL: a pure-Go build says so, and the seal keeps
// crypto/rsa and crypto/ecdsa.
func TestNewFailsWithoutOpenSSL(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if Available {
		t.Fatal("a pure-Go build says it has OpenSSL")
	}
	if _, err := NewRSA(k); err == nil {
		t.Fatal("NewRSA made a key without OpenSSL")
	}
	if _, err := NewECDSA(ec); err == nil {
		t.Fatal("NewECDSA made a key without OpenSSL")
	}
}
