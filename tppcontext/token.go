package tppcontext

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Lifetime is how long a context token is valid after it is issued.
const Lifetime = 60 * time.Second

// MinSecretBytes is the shortest HS256 secret accepted.
const MinSecretBytes = 32

// Issuer signs context tokens on the gateway side.
type Issuer struct {
	signer jose.Signer
}

// NewIssuer returns an issuer for key: a []byte secret (HS256, at least
// MinSecretBytes long) or an ed25519.PrivateKey (EdDSA).
func NewIssuer(key any) (*Issuer, error) {
	var alg jose.SignatureAlgorithm
	switch k := key.(type) {
	case []byte:
		if len(k) < MinSecretBytes {
			return nil, fmt.Errorf("tppcontext: HS256 secret has %d bytes, need at least %d", len(k), MinSecretBytes)
		}
		alg = jose.HS256
	case ed25519.PrivateKey:
		alg = jose.EdDSA
	default:
		return nil, fmt.Errorf("tppcontext: unsupported signing key type %T", key)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, nil)
	if err != nil {
		return nil, fmt.Errorf("tppcontext: %w", err)
	}
	return &Issuer{signer: s}, nil
}

// Issue stamps c with now and the expiry and returns the compact JWS.
func (i *Issuer) Issue(c Context, now time.Time) (string, error) {
	c.IssuedAt = now.Unix()
	c.Expiry = now.Add(Lifetime).Unix()
	payload, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("tppcontext: %w", err)
	}
	jws, err := i.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("tppcontext: %w", err)
	}
	return jws.CompactSerialize()
}

// Verifier checks context tokens on the backend side.
type Verifier struct {
	key  any
	algs []jose.SignatureAlgorithm
}

// NewVerifier returns a verifier for key: the same []byte secret as the
// issuer (HS256) or the issuer's ed25519.PublicKey (EdDSA). Only that one
// algorithm is accepted, so a token cannot pick a weaker one.
func NewVerifier(key any) (*Verifier, error) {
	switch k := key.(type) {
	case []byte:
		if len(k) < MinSecretBytes {
			return nil, fmt.Errorf("tppcontext: HS256 secret has %d bytes, need at least %d", len(k), MinSecretBytes)
		}
		return &Verifier{key: k, algs: []jose.SignatureAlgorithm{jose.HS256}}, nil
	case ed25519.PublicKey:
		return &Verifier{key: k, algs: []jose.SignatureAlgorithm{jose.EdDSA}}, nil
	default:
		return nil, fmt.Errorf("tppcontext: unsupported verification key type %T", key)
	}
}

// Errors returned by Verify.
var (
	ErrMissing = errors.New("tppcontext: no context token")
	ErrInvalid = errors.New("tppcontext: context token invalid")
	ErrExpired = errors.New("tppcontext: context token expired")
)

// Verify checks the token's signature and lifetime and returns its context.
func (v *Verifier) Verify(token string, now time.Time) (*Context, error) {
	if token == "" {
		return nil, ErrMissing
	}
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		return nil, ErrInvalid
	}
	payload, err := jws.Verify(v.key)
	if err != nil {
		return nil, ErrInvalid
	}
	var c Context
	if err := json.Unmarshal(payload, &c); err != nil || c.TPP == "" || c.Expiry == 0 {
		return nil, ErrInvalid
	}
	t := now.Unix()
	// A little leeway for clock differences between gateway and backend
	// instances; the lifetime itself is short.
	if t > c.Expiry || c.IssuedAt > t+5 {
		return nil, ErrExpired
	}
	return &c, nil
}
