//go:build cgo

package pkcs11key_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obgw/obgw/pkcs11key"
	"github.com/obgw/obgw/pkcs11key/softhsm"
)

var hsm *softhsm.HSM

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "obgw-softhsm")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if hsm, err = softhsm.New(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// SoftHSM2 reads its configuration when the module is initialised:
	// this process's tokens are hsm's.
	os.Setenv("SOFTHSM2_CONF", hsm.Conf)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// verify checks sig over digest with pub, as a TPP would.
func verify(pub crypto.PublicKey, digest, sig []byte) error {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, digest, sig)
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(k, digest, sig) {
			return fmt.Errorf("ECDSA signature does not verify")
		}
		return nil
	}
	return fmt.Errorf("key %T", pub)
}

// TestSignInToken: keys generated inside a SoftHSM2 token, RSA-2048 and
// P-256, sign through their URIs, and the signatures verify with the
// public keys the token gave at generation.
func TestSignInToken(t *testing.T) {
	tok, err := hsm.InitToken("sign", "1234")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		object string
		bits   int
	}{{"seal-rsa", 2048}, {"seal-ec", 0}} {
		pub, err := tok.Generate(tt.object, tt.bits)
		if err != nil {
			t.Fatal(err)
		}
		loc, err := pkcs11key.Parse(tok.URI(tt.object))
		if err != nil {
			t.Fatal(err)
		}
		s, err := pkcs11key.Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if !pub.(interface{ Equal(crypto.PublicKey) bool }).Equal(s.Public()) {
			t.Fatalf("%s: the opened key is not the generated one", tt.object)
		}
		digest := sha256.Sum256([]byte("date: Sat, 28 Nov 2026 10:00:00 GMT"))
		sig, err := s.Sign(nil, digest[:], crypto.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		if err := verify(pub, digest[:], sig); err != nil {
			t.Fatalf("%s: %v", tt.object, err)
		}
		if strings.Contains(s.String(), tok.PIN) || !strings.Contains(s.String(), "object="+tt.object) {
			t.Errorf("String: %s", s)
		}
	}
	loc, _ := pkcs11key.Parse(tok.URI("no-such-key"))
	if _, err := pkcs11key.Open(loc); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing key: %v", err)
	}
}

// TestWrongPIN: a PIN the token refuses fails the opening, and the error
// does not show the PIN.
func TestWrongPIN(t *testing.T) {
	tok, err := hsm.InitToken("pin", "2468")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tok.Generate("seal", 0); err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(t.TempDir(), "pin")
	os.WriteFile(wrong, []byte("1357\n"), 0o600)
	loc, _ := pkcs11key.Parse(strings.Replace(tok.URI("seal"), tok.PINFile, wrong, 1))
	s, err := pkcs11key.Open(loc)
	if err == nil {
		s.Close()
		t.Fatal("opened with a wrong PIN")
	}
	if strings.Contains(err.Error(), "1357") {
		t.Errorf("the error shows the PIN: %v", err)
	}
}

// TestTokenAwayAndBack: a token that goes away fails each signature; when
// it is back, the Signer reopens it and signs, without being opened anew.
func TestTokenAwayAndBack(t *testing.T) {
	tok, err := hsm.InitToken("away", "5678")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := tok.Generate("seal", 0)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := pkcs11key.Parse(tok.URI("seal"))
	s, err := pkcs11key.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	digest := sha256.Sum256([]byte("x"))
	dir, err := tok.Dir()
	if err != nil {
		t.Fatal(err)
	}
	// Out of the token directory: SoftHSM2 has no token there.
	away := filepath.Join(hsm.Dir, "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	pkcs11key.SetClock(t, 0)
	for i := range 3 {
		if sig, err := s.Sign(nil, digest[:], crypto.SHA256); err == nil {
			t.Fatalf("signature %d while the token is away: %x", i, sig)
		}
		pkcs11key.SetClock(t, 2*(i+1))
	}
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	pkcs11key.SetClock(t, 10)
	sig, err := s.Sign(nil, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatalf("the token is back: %v", err)
	}
	if err := verify(pub, digest[:], sig); err != nil {
		t.Fatal(err)
	}
}
