package signature

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	key := rsa2048(t)
	msg := []byte("date: Sun, 05 Jan 2014 21:31:40 GMT\nx-request-id: 99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	sum := sha256.Sum256(msg)
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(&key.PublicKey, msg, sig); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	otherKey := appendixCPublic(t)
	tests := []struct {
		name    string
		pub     *rsa.PublicKey
		msg     []byte
		sig     []byte
		wantErr string
	}{
		{"nil key", nil, msg, sig, "no RSA public key"},
		{"key without modulus", &rsa.PublicKey{E: 65537}, msg, sig, "no RSA public key"},
		{"other message", &key.PublicKey, append(msg, ' '), sig, "does not verify"},
		{"flipped signature bit", &key.PublicKey, msg, flip(sig), "does not verify"},
		{"short signature", &key.PublicKey, msg, sig[1:], "signature is 255 bytes but the 2048-bit key"},
		{"key of another size", otherKey, msg, sig, "1024-bit key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.pub, tt.msg, tt.sig)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Verify error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if err := Verify(&key.PublicKey, append(msg, ' '), sig); !errors.Is(err, ErrVerification) {
		t.Fatalf("Verify error %v, want ErrVerification", err)
	}
}

func flip(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[len(c)/2] ^= 0x10
	return c
}
