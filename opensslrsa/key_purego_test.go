//go:build !cgo || obgw_purego

package opensslrsa

import (
	"crypto/rand"
	"crypto/rsa"
	"testing"
)

// TestNewFailsWithoutOpenSSL: a pure-Go build says so, and the seal keeps
// crypto/rsa.
func TestNewFailsWithoutOpenSSL(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if Available {
		t.Fatal("a pure-Go build says it has OpenSSL")
	}
	if _, err := New(k); err == nil {
		t.Fatal("New made a key without OpenSSL")
	}
}
