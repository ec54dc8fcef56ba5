package tppcontext

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"

	"github.com/obgw/obgw/pemfile"
)

// SigningKey is an asymmetric key that signs context tokens for upstreams
// that must verify them without being able to forge them: Ed25519 (EdDSA)
// or ECDSA P-256 (ES256). Its KeyID is the RFC 7638 thumbprint of its
// public key, so the same key has the same kid on every gateway and in
// every JWKS, with nothing to configure.
type SigningKey struct {
	key   crypto.Signer
	alg   jose.SignatureAlgorithm
	keyID string
}

// ParseSigningKey reads a PEM private key: PKCS #8 Ed25519 or ECDSA P-256,
// or SEC 1 ("EC PRIVATE KEY") P-256.
func ParseSigningKey(pemBytes []byte) (*SigningKey, error) {
	key, err := pemfile.PrivateKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("tppcontext: signing key: %v", err)
	}
	return NewSigningKey(key)
}

// NewSigningKey wraps an ed25519.PrivateKey, or a signer of a P-256 ECDSA
// key: a *ecdsa.PrivateKey, or a key in a token (package pkcs11key).
func NewSigningKey(key any) (*SigningKey, error) {
	k := &SigningKey{}
	switch s := key.(type) {
	case ed25519.PrivateKey:
		if len(s) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("tppcontext: Ed25519 private key has %d bytes, want %d", len(s), ed25519.PrivateKeySize)
		}
		k.key, k.alg = s, jose.EdDSA
	case crypto.Signer:
		pub, ok := s.Public().(*ecdsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("tppcontext: %T signing keys are not supported (Ed25519 or ECDSA P-256)", s.Public())
		}
		if pub.Curve != elliptic.P256() {
			return nil, errors.New("tppcontext: ECDSA signing keys must be on P-256 (ES256)")
		}
		k.key, k.alg = s, jose.ES256
	default:
		return nil, fmt.Errorf("tppcontext: %T signing keys are not supported (Ed25519 or ECDSA P-256)", key)
	}
	jwk := jose.JSONWebKey{Key: k.key.Public()}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("tppcontext: signing key thumbprint: %v", err)
	}
	k.keyID = base64.RawURLEncoding.EncodeToString(sum)
	return k, nil
}

// KeyID is the key's kid: the base64url RFC 7638 SHA-256 thumbprint.
func (k *SigningKey) KeyID() string { return k.keyID }

// Algorithm is EdDSA or ES256.
func (k *SigningKey) Algorithm() jose.SignatureAlgorithm { return k.alg }

// PublicJWK is the key's public half as a JWK with kid, alg and use.
func (k *SigningKey) PublicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.key.Public(), KeyID: k.keyID, Algorithm: string(k.alg), Use: "sig"}
}

// KeySet is the JWKS upstreams verify tokens with: the signing key's public
// half first, then those of the published keys (the next key before a
// rotation, the previous one while tokens it signed may still be in
// flight). A key given twice is listed once.
func KeySet(signing *SigningKey, published ...*SigningKey) jose.JSONWebKeySet {
	var set jose.JSONWebKeySet
	seen := map[string]bool{}
	for _, k := range append([]*SigningKey{signing}, published...) {
		if k == nil || seen[k.keyID] {
			continue
		}
		seen[k.keyID] = true
		set.Keys = append(set.Keys, k.PublicJWK())
	}
	return set
}

// PublicJWK is the JWK of a public key that verifies tokens (Ed25519 or
// ECDSA P-256), with its kid (the RFC 7638 thumbprint), alg and use: a
// key published before or after it signs.
func PublicJWK(pub any) (jose.JSONWebKey, error) {
	var alg jose.SignatureAlgorithm
	switch k := pub.(type) {
	case ed25519.PublicKey:
		alg = jose.EdDSA
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return jose.JSONWebKey{}, errors.New("tppcontext: ECDSA keys must be on P-256 (ES256)")
		}
		alg = jose.ES256
	default:
		return jose.JSONWebKey{}, fmt.Errorf("tppcontext: %T keys are not supported (Ed25519 or ECDSA P-256)", pub)
	}
	jwk := jose.JSONWebKey{Key: pub}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return jose.JSONWebKey{}, err
	}
	return jose.JSONWebKey{Key: pub, KeyID: base64.RawURLEncoding.EncodeToString(sum), Algorithm: string(alg), Use: "sig"}, nil
}
