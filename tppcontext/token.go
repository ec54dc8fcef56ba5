package tppcontext

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Lifetime is how long a context token is valid after it is issued.
const Lifetime = 60 * time.Second

// MinSecretBytes is the shortest HS256 secret accepted.
const MinSecretBytes = 32

// Issuer signs context tokens on the gateway side.
//
// Tokens are compact JWS (RFC 7515) with a fixed protected header. The
// issuer writes that form itself: the header never changes, so it is
// encoded once, and the only per-token work is the claims, one MAC or
// signature and one buffer. go-jose re-marshals the header through
// reflection for every token (44 of the gateway's 58 allocations per
// request). Tokens are parsed and checked only by go-jose (Verifier), the
// side that reads untrusted input, and the tests check every issued form
// with it.
type Issuer struct {
	header   string             // base64url of the protected header, then "."
	macs     *sync.Pool         // of hash.Hash: HMAC-SHA256 keyed with the secret (HS256)
	ed       ed25519.PrivateKey // EdDSA
	ec       crypto.Signer      // ES256: a P-256 key, in memory or in a token
	audience string             // the aud claim, when set
}

// NewIssuer returns an issuer for key: a []byte secret (HS256, at least
// MinSecretBytes long), an ed25519.PrivateKey (EdDSA, no kid), or a
// *SigningKey (EdDSA or ES256 with its kid in the header, for upstreams
// that pick the key from a JWKS).
func NewIssuer(key any) (*Issuer, error) {
	switch k := key.(type) {
	case *SigningKey:
		i := &Issuer{header: protectedHeaderWithKeyID(k.alg, k.keyID)}
		if s, ok := k.key.(ed25519.PrivateKey); ok {
			i.ed = s
		} else {
			i.ec = k.key
		}
		return i, nil
	case []byte:
		if len(k) < MinSecretBytes {
			return nil, fmt.Errorf("tppcontext: HS256 secret has %d bytes, need at least %d", len(k), MinSecretBytes)
		}
		secret := bytes.Clone(k)
		return &Issuer{
			header: protectedHeader(jose.HS256),
			macs:   &sync.Pool{New: func() any { return hmac.New(sha256.New, secret) }},
		}, nil
	case ed25519.PrivateKey:
		if len(k) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("tppcontext: Ed25519 private key has %d bytes, want %d", len(k), ed25519.PrivateKeySize)
		}
		return &Issuer{header: protectedHeader(jose.EdDSA), ed: k}, nil
	default:
		return nil, fmt.Errorf("tppcontext: unsupported signing key type %T", key)
	}
}

// protectedHeader is the encoded header of every token and the dot after it.
func protectedHeader(alg jose.SignatureAlgorithm) string {
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"`+string(alg)+`"}`)) + "."
}

// protectedHeaderWithKeyID is protectedHeader naming the key (its kid is
// base64url: nothing in it needs JSON escaping).
func protectedHeaderWithKeyID(alg jose.SignatureAlgorithm, kid string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"`+string(alg)+`","kid":"`+kid+`"}`)) + "."
}

// WithAudience returns a copy of i that names aud (the upstream that is to
// accept the tokens) in every token's aud claim.
func (i *Issuer) WithAudience(aud string) *Issuer {
	c := *i
	c.audience = aud
	return &c
}

// Issue stamps c with now and the expiry and returns the compact JWS.
func (i *Issuer) Issue(c Context, now time.Time) (string, error) {
	c.Version = Version
	if i.audience != "" {
		c.Audience = i.audience
	}
	c.IssuedAt = now.Unix()
	c.Expiry = now.Add(Lifetime).Unix()
	payload, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("tppcontext: %w", err)
	}
	enc := base64.RawURLEncoding
	sigLen := sha256.Size
	switch {
	case i.ed != nil:
		sigLen = ed25519.SignatureSize
	case i.ec != nil:
		sigLen = 64
	}
	bp := tokenBufferPool.Get().(*[]byte)
	defer tokenBufferPool.Put(bp)
	buf := slices.Grow((*bp)[:0], len(i.header)+enc.EncodedLen(len(payload))+1+enc.EncodedLen(sigLen))
	buf = append(buf, i.header...)
	buf = enc.AppendEncode(buf, payload)
	input := buf // header.payload, the JWS signing input
	var sig []byte
	var sum [sha256.Size]byte
	switch {
	case i.ed != nil:
		sig = ed25519.Sign(i.ed, input)
	case i.ec != nil:
		// JWS ES256 (RFC 7518 3.4): R and S, 32 bytes each, big-endian.
		sum = sha256.Sum256(input)
		rs, err := signES256(i.ec, sum[:])
		if err != nil {
			return "", fmt.Errorf("tppcontext: %w", err)
		}
		sig = rs[:]
	default:
		mac := i.macs.Get().(hash.Hash)
		mac.Reset()
		mac.Write(input)
		sig = mac.Sum(sum[:0])
		i.macs.Put(mac)
	}
	buf = append(buf, '.')
	buf = enc.AppendEncode(buf, sig)
	*bp = buf[:0]
	return string(buf), nil
}

// tokenBufferPool recycles the buffers tokens are written in, so a token
// costs one allocation: its string.
var tokenBufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Verifier checks context tokens on the backend side.
type Verifier struct {
	key      any
	keys     *jose.JSONWebKeySet // by kid, instead of key
	algs     []jose.SignatureAlgorithm
	audience string
}

// NewKeySetVerifier returns a verifier of tokens signed by any key of set
// (EdDSA or ES256), the key picked by the token's kid; a token without a
// kid, with a kid the set lacks, or with another algorithm than its key's
// is invalid.
func NewKeySetVerifier(set jose.JSONWebKeySet) (*Verifier, error) {
	if len(set.Keys) == 0 {
		return nil, errors.New("tppcontext: the key set is empty")
	}
	for _, k := range set.Keys {
		if k.KeyID == "" || (k.Algorithm != string(jose.EdDSA) && k.Algorithm != string(jose.ES256)) || !k.IsPublic() {
			return nil, fmt.Errorf("tppcontext: key %q: want public EdDSA or ES256 keys with a kid", k.KeyID)
		}
	}
	return &Verifier{keys: &set, algs: []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256}}, nil
}

// WithAudience returns a copy of v that also refuses tokens whose aud is
// not aud.
func (v *Verifier) WithAudience(aud string) *Verifier {
	c := *v
	c.audience = aud
	return &c
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

// Errors returned by Verify and VerifyRequest.
var (
	ErrMissing      = errors.New("tppcontext: no context token")
	ErrInvalid      = errors.New("tppcontext: context token invalid")
	ErrExpired      = errors.New("tppcontext: context token expired")
	ErrOtherRequest = errors.New("tppcontext: context token issued for another request")
)

// ClockSkew is how far a verifier's clock may be behind the gateway's: a
// token issued up to this far in the future is accepted.
const ClockSkew = 5 * time.Second

// Verify checks what docs/context-token.md asks of a token on its own:
// the signature (with the verifier's key, or the set's key its kid names,
// in that key's algorithm), the audience (WithAudience), a version this
// package knows, the claims tpp, requestId, iat and exp, and the lifetime
// with ClockSkew. It returns the context. Whether the token is for the
// request it came with is VerifyRequest's; the roles are the caller's
// (Context.HasRole).
func (v *Verifier) Verify(token string, now time.Time) (*Context, error) {
	if token == "" {
		return nil, ErrMissing
	}
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		return nil, ErrInvalid
	}
	key := v.key
	if v.keys != nil {
		h := jws.Signatures[0].Header
		found := v.keys.Key(h.KeyID)
		if h.KeyID == "" || len(found) != 1 || found[0].Algorithm != h.Algorithm {
			return nil, ErrInvalid
		}
		key = found[0].Key
	}
	payload, err := jws.Verify(key)
	if err != nil {
		return nil, ErrInvalid
	}
	var c Context
	if err := json.Unmarshal(payload, &c); err != nil || c.Version < 1 || c.Version > Version ||
		c.TPP == "" || c.RequestID == "" || c.IssuedAt == 0 || c.Expiry == 0 {
		return nil, ErrInvalid
	}
	if v.audience != "" && c.Audience != v.audience {
		return nil, ErrInvalid
	}
	t := now.Unix()
	// A little leeway for clock differences between gateway and backend
	// instances; the lifetime itself is short.
	if t > c.Expiry || c.IssuedAt > t+int64(ClockSkew/time.Second) {
		return nil, ErrExpired
	}
	return &c, nil
}

// VerifyRequest is Verify, and refuses with ErrOtherRequest a token that
// was not issued for the request it came with: method, path (as the
// gateway saw it: without a path prefix the gateway put in front on the
// way to the upstream) and requestID (the X-Request-ID header) must be
// the token's.
func (v *Verifier) VerifyRequest(token, method, path, requestID string, now time.Time) (*Context, error) {
	c, err := v.Verify(token, now)
	if err != nil {
		return nil, err
	}
	if !c.IsFor(method, path, requestID) {
		return nil, ErrOtherRequest
	}
	return c, nil
}

// signES256 signs digest with a P-256 key in JWS's form: R and S, 32
// bytes each. A key in memory gives them directly; a crypto.Signer (a key
// in a token) gives ASN.1 DER, which is read back.
func signES256(key crypto.Signer, digest []byte) (rs [64]byte, err error) {
	var r, s *big.Int
	if k, ok := key.(*ecdsa.PrivateKey); ok {
		r, s, err = ecdsa.Sign(rand.Reader, k, digest)
	} else {
		var der []byte
		if der, err = key.Sign(rand.Reader, digest, crypto.SHA256); err == nil {
			var v struct{ R, S *big.Int }
			var rest []byte
			if rest, err = asn1.Unmarshal(der, &v); err == nil && len(rest) > 0 {
				err = errors.New("ECDSA signature with trailing data")
			}
			r, s = v.R, v.S
		}
	}
	if err != nil {
		return rs, err
	}
	if r.Sign() <= 0 || s.Sign() <= 0 || r.BitLen() > 256 || s.BitLen() > 256 {
		return rs, errors.New("ECDSA signature out of range")
	}
	r.FillBytes(rs[:32])
	s.FillBytes(rs[32:])
	return rs, nil
}
