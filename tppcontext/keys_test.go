package tppcontext

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func pemKey(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func signingKeys(t *testing.T) (ed, ec *SigningKey) {
	t.Helper()
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	ecPriv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var err error
	if ed, err = ParseSigningKey(pemKey(t, edPriv)); err != nil {
		t.Fatal(err)
	}
	if ec, err = ParseSigningKey(pemKey(t, ecPriv)); err != nil {
		t.Fatal(err)
	}
	return ed, ec
}

// opaqueSigner is a P-256 key seen only as a crypto.Signer, as a key in
// a token is: it signs ASN.1 DER.
type opaqueSigner struct{ k *ecdsa.PrivateKey }

func (o opaqueSigner) Public() crypto.PublicKey { return o.k.Public() }
func (o opaqueSigner) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	return o.k.Sign(r, digest, opts)
}

// TestKeySetVerification: tokens signed with a SigningKey name it by kid
// and verify against a JWKS holding it (EdDSA and ES256, in memory and
// behind a crypto.Signer, as in an HSM), through the JWKS's JSON as an
// upstream would fetch it; the audience is checked.
func TestKeySetVerification(t *testing.T) {
	ed, ec := signingKeys(t)
	hsmKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	hsm, err := NewSigningKey(opaqueSigner{hsmKey})
	if err != nil || hsm.Algorithm() != jose.ES256 {
		t.Fatalf("a P-256 crypto.Signer: %v", err)
	}
	now := time.Unix(1_800_000_000, 0)
	raw, err := json.Marshal(KeySet(ed, ec, hsm, ed))
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(raw, &set); err != nil || len(set.Keys) != 3 {
		t.Fatalf("JWKS %s: %v (want three keys, the repeated one once)", raw, err)
	}
	if strings.Contains(string(raw), `"d"`) {
		t.Fatalf("the JWKS holds private key material: %s", raw)
	}
	v, err := NewKeySetVerifier(set)
	if err != nil {
		t.Fatal(err)
	}
	v = v.WithAudience("bank-api")
	for _, k := range []*SigningKey{ed, ec, hsm} {
		iss, err := NewIssuer(k)
		if err != nil {
			t.Fatal(err)
		}
		iss = iss.WithAudience("bank-api")
		tok, err := iss.Issue(sample(), now)
		if err != nil {
			t.Fatal(err)
		}
		hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
		if !strings.Contains(string(hdr), `"kid":"`+k.KeyID()+`"`) || !strings.Contains(string(hdr), string(k.Algorithm())) {
			t.Fatalf("%s header %s: want alg and kid", k.Algorithm(), hdr)
		}
		c, err := v.Verify(tok, now)
		if err != nil || c.TPP != sample().TPP || c.Audience != "bank-api" || c.Version != Version {
			t.Fatalf("%s: %+v %v", k.Algorithm(), c, err)
		}
		// Another audience, a tampered payload, expiry.
		other, _ := NewIssuer(k)
		tok2, _ := other.WithAudience("someone-else").Issue(sample(), now)
		if _, err := v.Verify(tok2, now); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: another audience: %v", k.Algorithm(), err)
		}
		parts := strings.Split(tok, ".")
		if _, err := v.Verify(parts[0]+"."+parts[1]+"A."+parts[2], now); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: tampered: %v", k.Algorithm(), err)
		}
		if _, err := v.Verify(tok, now.Add(Lifetime+time.Second)); !errors.Is(err, ErrExpired) {
			t.Errorf("%s: expired: %v", k.Algorithm(), err)
		}
	}
	// A key the set lacks, a token without kid, and one whose header
	// claims another algorithm than its key's.
	stranger, _ := signingKeys(t)
	iss, _ := NewIssuer(stranger)
	tok, _ := iss.Issue(sample(), now)
	if _, err := v.Verify(tok, now); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown kid: %v", err)
	}
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	noKid, _ := NewIssuer(edPriv)
	tok, _ = noKid.Issue(sample(), now)
	if _, err := v.Verify(tok, now); !errors.Is(err, ErrInvalid) {
		t.Errorf("no kid: %v", err)
	}
	lying := &Issuer{header: protectedHeaderWithKeyID(jose.ES256, ed.KeyID()), ed: ed.key.(ed25519.PrivateKey)}
	tok, _ = lying.Issue(sample(), now)
	if _, err := v.Verify(tok, now); !errors.Is(err, ErrInvalid) {
		t.Errorf("algorithm not the key's: %v", err)
	}
}

// TestSigningKeyErrors: only Ed25519 and P-256 keys sign, and the kid is
// the key's thumbprint (the same key, the same kid).
func TestSigningKeyErrors(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for name, raw := range map[string][]byte{
		"RSA":      pemKey(t, rsaKey),
		"P-384":    pemKey(t, p384),
		"not PEM":  []byte("hello"),
		"a cert":   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
		"bad DER8": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}),
	} {
		if _, err := ParseSigningKey(raw); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	a, _ := ParseSigningKey(pemKey(t, edPriv))
	b, _ := NewSigningKey(edPriv)
	if a.KeyID() != b.KeyID() || len(a.KeyID()) != 43 {
		t.Fatalf("kids %q %q: want the same 43-character thumbprint", a.KeyID(), b.KeyID())
	}
	if _, err := NewKeySetVerifier(jose.JSONWebKeySet{}); err == nil {
		t.Error("empty key set accepted")
	}
	if _, err := NewKeySetVerifier(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: edPriv, KeyID: "x", Algorithm: "EdDSA"}}}); err == nil {
		t.Error("a private key in the verifier's set accepted")
	}
}
