// Package softhsm sets up SoftHSM2 tokens for tests of PKCS #11 keys
// (package pkcs11key): a configuration of its own in a directory, a token
// initialised by softhsm2-util, key pairs generated inside the token, and
// the URIs that name them. It needs Debian's softhsm2 package (which
// .ci/run installs); it never falls back to anything else.
package softhsm

import (
	"crypto"
	"crypto/elliptic"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ThalesGroup/crypto11"
)

// Module is the SoftHSM2 library of Debian's softhsm2 package.
const Module = "/usr/lib/softhsm/libsofthsm2.so"

// HSM is a SoftHSM2 configuration: its tokens live under Dir.
type HSM struct {
	Dir string
	// Conf is the configuration file; processes using these tokens need
	// SOFTHSM2_CONF=Conf in their environment.
	Conf string
}

// New writes a configuration under dir (made if missing).
func New(dir string) (*HSM, error) {
	if _, err := os.Stat(Module); err != nil {
		return nil, fmt.Errorf("softhsm: %s: %v (apt-get install softhsm2)", Module, err)
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.MkdirAll(tokens, 0o700); err != nil {
		return nil, err
	}
	h := &HSM{Dir: dir, Conf: filepath.Join(dir, "softhsm2.conf")}
	conf := fmt.Sprintf("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n", tokens)
	return h, os.WriteFile(h.Conf, []byte(conf), 0o600)
}

// Env is the environment entry that points SoftHSM2 at h.
func (h *HSM) Env() string { return "SOFTHSM2_CONF=" + h.Conf }

// Token is an initialised token.
type Token struct {
	hsm     *HSM
	Label   string
	PIN     string
	PINFile string
}

// InitToken initialises a token labelled label in a free slot, with pin
// as the user PIN (written to a file for pin-source).
func (h *HSM) InitToken(label, pin string) (*Token, error) {
	cmd := exec.Command("softhsm2-util", "--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", pin+"-so")
	cmd.Env = append(os.Environ(), h.Env())
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("softhsm2-util --init-token: %v: %s", err, out)
	}
	t := &Token{hsm: h, Label: label, PIN: pin, PINFile: filepath.Join(h.Dir, label+".pin")}
	return t, os.WriteFile(t.PINFile, []byte(pin+"\n"), 0o600)
}

// URI names the key pair labelled object in t.
func (t *Token) URI(object string) string {
	return fmt.Sprintf("pkcs11:token=%s;object=%s?module-path=%s&pin-source=file:%s", t.Label, object, Module, t.PINFile)
}

// Generate makes a key pair labelled object inside the token (RSA of
// bits, or ECDSA P-256 when bits is 0) and returns its public key. The
// process must have SOFTHSM2_CONF=t's configuration (Env) in its
// environment before its first use of the module.
func (t *Token) Generate(object string, bits int) (crypto.PublicKey, error) {
	ctx, err := crypto11.Configure(&crypto11.Config{Path: Module, TokenLabel: t.Label, Pin: t.PIN})
	if err != nil {
		return nil, err
	}
	defer ctx.Close()
	id := []byte(object)
	var key crypto11.Signer
	if bits == 0 {
		key, err = ctx.GenerateECDSAKeyPairWithLabel(id, []byte(object), elliptic.P256())
	} else {
		key, err = ctx.GenerateRSAKeyPairWithLabel(id, []byte(object), bits)
	}
	if err != nil {
		return nil, err
	}
	return key.Public(), nil
}

// Dir is the directory SoftHSM2 keeps t in: a test that moves it out of
// the token directory takes the token away, and moving it back returns it.
func (t *Token) Dir() (string, error) {
	dirs, _ := filepath.Glob(filepath.Join(t.hsm.Dir, "tokens", "*"))
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "token.object"))
		if err == nil && strings.Contains(string(raw), t.Label) {
			return d, nil
		}
	}
	return "", fmt.Errorf("softhsm: no token %s under %s", t.Label, t.hsm.Dir)
}
