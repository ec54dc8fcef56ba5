package idp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/obgw/obgw/pemfile"
)

// clientAssertionType is RFC 7523's client assertion type.
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// ClientKey is obgw's private key at the provider, for private_key_jwt
// client authentication (OpenID Connect Core 9): each code exchange sends a
// fresh short-lived JWT signed with it, naming obgw and the provider.
type ClientKey struct {
	key crypto.Signer
	alg jose.SignatureAlgorithm
	kid string
}

// ParseClientKey reads a PEM private key (PKCS #8, PKCS #1 RSA or SEC 1
// EC): RSA signs RS256, ECDSA P-256 ES256, Ed25519 EdDSA. kid names it in
// the assertions' header when the provider holds several of obgw's keys.
func ParseClientKey(pemBytes []byte, kid string) (*ClientKey, error) {
	key, err := pemfile.PrivateKey(pemBytes)
	if err != nil {
		return nil, err
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("RSA key of %d bits: at least 2048", k.N.BitLen())
		}
		return &ClientKey{key: k, alg: jose.RS256, kid: kid}, nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("ECDSA key not on P-256")
		}
		return &ClientKey{key: k, alg: jose.ES256, kid: kid}, nil
	case ed25519.PrivateKey:
		return &ClientKey{key: k, alg: jose.EdDSA, kid: kid}, nil
	}
	return nil, fmt.Errorf("%T keys are not supported", key)
}

// assertionLifetime bounds a client assertion: it is used at once.
const assertionLifetime = time.Minute

// assertion returns a client assertion for clientID at the provider
// issuer, whose token endpoint is tokenURL. Its audience is both: OpenID
// Connect Core 9 says the token endpoint, RFC 7523bis and providers such
// as zitadel (op.VerifyJWTAssertion) and ID-porten want the issuer, and
// those that check the audience look for theirs among the values.
func (k *ClientKey) assertion(clientID, issuer, tokenURL string, now time.Time) (string, error) {
	if k == nil {
		return "", errors.New("no private key")
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if k.kid != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), k.kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.key}, opts)
	if err != nil {
		return "", err
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	claims := jwt.Claims{
		Issuer: clientID, Subject: clientID, Audience: jwt.Audience{issuer, tokenURL},
		ID:       base64.RawURLEncoding.EncodeToString(id[:]),
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(assertionLifetime)),
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}
