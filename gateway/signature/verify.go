package signature

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
)

// ErrVerification is returned by Verify when the signature does not verify.
var ErrVerification = errors.New("signature does not verify with the key of TPP-Signature-Certificate; check the signing string: one \"name: value\" line per listed header, joined with \\n")

// Verify checks an RSASSA-PKCS1-v1_5 SHA-256 signature over signingString.
// It does not judge the key size; the certificate check admits RSA 2048 to
// 4096 bit keys only.
func Verify(pub *rsa.PublicKey, signingString, sig []byte) error {
	if pub == nil || pub.N == nil {
		return errors.New("no RSA public key to verify the signature with")
	}
	if size := pub.Size(); len(sig) != size {
		return fmt.Errorf("signature is %d bytes but the %d-bit key of TPP-Signature-Certificate makes %d-byte signatures", len(sig), pub.N.BitLen(), size)
	}
	sum := sha256.Sum256(signingString)
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		return ErrVerification
	}
	return nil
}
