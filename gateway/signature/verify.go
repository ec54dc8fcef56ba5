package signature

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"

	"filippo.io/bigmod"
)

// ErrVerification is returned by Verify when the signature does not verify.
var ErrVerification = errors.New("signature does not verify with the key of TPP-Signature-Certificate; check the signing string: one \"name: value\" line per listed header, joined with \\n")

// sha256DigestInfo is the DER DigestInfo prefix of a SHA-256 hash in an
// EMSA-PKCS1-v1_5 encoding (RFC 8017 section 9.2, note 1).
var sha256DigestInfo = []byte{0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20}

// Key is an RSA public key prepared for verifying RSASSA-PKCS1-v1_5
// SHA-256 signatures, kept with a cached certificate.
//
// crypto/rsa rebuilds the modulus' Montgomery constants on every
// VerifyPKCS1v15 call, a third of the cost of verifying with a 2048-bit
// key. Key builds them once with filippo.io/bigmod (crypto/rsa's own
// arithmetic, published as a module) and then does what crypto/rsa does:
// s^e mod n, then a comparison with the one valid encoding of the hash
// (RFC 8017 section 8.2.2). Tests check it against crypto/rsa.
type Key struct {
	n      *bigmod.Modulus
	e      uint
	prefix []byte // 00 01 FF..FF 00 DigestInfo: the encoding before the hash
}

// NewKey prepares pub. It does not judge the key size; the certificate
// check admits RSA 2048 to 4096 bit keys only.
func NewKey(pub *rsa.PublicKey) (*Key, error) {
	if pub == nil || pub.N == nil {
		return nil, errors.New("no RSA public key to verify the signature with")
	}
	// The exponent bounds crypto/rsa enforces.
	if pub.E < 3 || pub.E > 1<<31-1 || pub.E&1 == 0 {
		return nil, fmt.Errorf("RSA public exponent %d is not usable", pub.E)
	}
	n, err := bigmod.NewModulus(pub.N.Bytes())
	if err != nil || pub.N.Bit(0) == 0 || pub.N.BitLen() < 512 {
		return nil, errors.New("RSA modulus is not usable")
	}
	size := n.Size()
	padding := size - 3 - len(sha256DigestInfo) - sha256.Size
	if padding < 8 {
		return nil, errors.New("RSA modulus is too short for a SHA-256 signature")
	}
	prefix := make([]byte, 0, size-sha256.Size)
	prefix = append(prefix, 0x00, 0x01)
	prefix = append(prefix, bytes.Repeat([]byte{0xff}, padding)...)
	prefix = append(prefix, 0x00)
	prefix = append(prefix, sha256DigestInfo...)
	return &Key{n: n, e: uint(pub.E), prefix: prefix}, nil
}

// Verify checks an RSASSA-PKCS1-v1_5 SHA-256 signature over signingString.
func (k *Key) Verify(signingString, sig []byte) error {
	if size := k.n.Size(); len(sig) != size {
		return fmt.Errorf("signature is %d bytes but the %d-bit key of TPP-Signature-Certificate makes %d-byte signatures", len(sig), k.n.BitLen(), size)
	}
	s, err := bigmod.NewNat().SetBytes(sig, k.n)
	if err != nil { // the signature is not below the modulus
		return ErrVerification
	}
	em := bigmod.NewNat().ExpShortVarTime(s, k.e, k.n).Bytes(k.n)
	sum := sha256.Sum256(signingString)
	split := len(k.prefix)
	ok := subtle.ConstantTimeCompare(em[:split], k.prefix) & subtle.ConstantTimeCompare(em[split:], sum[:])
	if ok != 1 {
		return ErrVerification
	}
	return nil
}

// Verify checks an RSASSA-PKCS1-v1_5 SHA-256 signature over signingString
// with pub, preparing the key for this one call; keep a Key to verify many.
func Verify(pub *rsa.PublicKey, signingString, sig []byte) error {
	k, err := NewKey(pub)
	if err != nil {
		return err
	}
	return k.Verify(signingString, sig)
}
