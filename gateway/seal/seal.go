// Package seal signs the gateway's responses with the bank's QSealC, in the
// draft-cavage form TPPs sign their requests with (contract section 3), so
// a TPP verifies them with the code it already has:
//
//	Digest: SHA-256=<base64 of the SHA-256 of the exact body bytes sent>
//	Signature: keyId="SN=<hex>,CA=<issuer DN>",algorithm="rsa-sha256",headers="date digest x-request-id",signature="<base64>"
//	ASPSP-Signature-Certificate: <base64 DER of the bank's QSealC>
//
// x-request-id is signed when the response carries one (the gateway echoes
// the request's); date and digest always are.
//
// The algorithm follows the QSealC's key, as the interface description's
// "must match the certificate" has it: rsa-sha256 with an RSA seal, the
// one this dialect defines for TPPs, so their tooling verifies with the
// algorithm it signs with; ecdsa-sha256 (draft-cavage's) with a P-256
// seal. RSA-2048 costs about 1 ms per response on the reference machine's
// cores, most of a signed read's CPU; P-256 0.028 ms, deterministic (RFC
// 6979) (BenchmarkSign).
package seal

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/obgw/obgw/gateway/signature"
	"github.com/obgw/obgw/opensslrsa"
	"github.com/obgw/obgw/pemfile"
)

// CertificateHeader carries the bank's QSealC, base64 DER, beside the
// Signature: the response twin of TPP-Signature-Certificate.
const CertificateHeader = "ASPSP-Signature-Certificate"

// Headers are the response headers a Seal signs, in this order, each when
// present (date and digest always are).
var Headers = []string{"date", "digest", "x-request-id"}

// Seal is the bank's QSealC and its private key. Its methods may be called
// concurrently.
type Seal struct {
	key        crypto.Signer // RSA, or ECDSA P-256; in memory or in a token
	signer     string        // who computes the signature: SignerOpenSSL, ...
	algorithm  string        // signature.AlgorithmRSASHA256 or AlgorithmECDSASHA256
	cert       *x509.Certificate
	keyID      string
	certHeader string
	bufs       sync.Pool
}

// Load reads a Seal from a PEM certificate (the QSealC; further
// certificates, its chain, are ignored) and the PEM private key of its
// public key, unencrypted: RSA of at least 2048 bits (PKCS #8 or PKCS #1),
// signing rsa-sha256, or ECDSA P-256 (PKCS #8 or SEC 1), signing
// ecdsa-sha256.
func Load(certPEM, keyPEM []byte) (*Seal, error) {
	certs, err := pemfile.Certificates(certPEM)
	if err != nil {
		return nil, fmt.Errorf("the seal certificate: %w", err)
	}
	key, err := pemfile.PrivateKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("the seal key: %w", err)
	}
	return New(certs[0], key)
}

// Who computes a seal's signatures (Seal.Signer).
const (
	SignerOpenSSL = "openssl" // an RSA key in memory, through OpenSSL's libcrypto
	SignerGo      = "go"      // a key in memory, through crypto/rsa or crypto/ecdsa
	SignerKey     = "key"     // the signer New was given, such as a token's key
)

// New makes a Seal of the QSealC cert and key, the signer of its public
// key: a private key in memory, or one in a token (package pkcs11key).
// RSA of at least 2048 bits signs rsa-sha256 (PKCS #1 v1.5); ECDSA P-256
// ecdsa-sha256 (ASN.1 DER). An RSA key in memory signs through OpenSSL
// when this build has it (package opensslrsa), the same bytes 2.6 times
// faster; otherwise, or if OpenSSL refuses the key or signs a test digest
// otherwise than crypto/rsa, through crypto/rsa.
func New(cert *x509.Certificate, key crypto.Signer) (*Seal, error) {
	s := &Seal{key: key, signer: SignerKey, cert: cert, certHeader: base64.StdEncoding.EncodeToString(cert.Raw)}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		s.signer = SignerGo
		if opensslrsa.Available && k.N.BitLen() >= 2048 {
			if ok, err := opensslrsa.New(k); err == nil {
				s.key, s.signer = ok, SignerOpenSSL
			}
		}
	case *ecdsa.PrivateKey:
		s.signer = SignerGo
	}
	switch k := key.Public().(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("the seal key is RSA of %d bits; use 2048 or more", k.N.BitLen())
		}
		s.algorithm = signature.AlgorithmRSASHA256
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("the seal key is ECDSA on %s; ecdsa-sha256 needs P-256", k.Curve.Params().Name)
		}
		s.algorithm = signature.AlgorithmECDSASHA256
	default:
		return nil, fmt.Errorf("the seal key is %T; use RSA or ECDSA P-256", k)
	}
	if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(cert.PublicKey) {
		return nil, errors.New("the seal certificate does not hold the public key of the seal key")
	}
	if now := time.Now(); now.After(cert.NotAfter) {
		return nil, fmt.Errorf("the seal certificate %q expired on %s", cert.Subject.CommonName, cert.NotAfter.Format(time.DateOnly))
	}
	if cert.KeyUsage != 0 && cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return nil, errors.New("the seal certificate's key usage allows no signatures (digitalSignature or nonRepudiation)")
	}
	// The keyId is derived as a TPP's is: a bank's seal is a QSealC too.
	var err error
	if s.keyID, err = signature.FormatKeyID(cert); err != nil {
		return nil, err
	}
	return s, nil
}

// Signer says who computes the seal's signatures: SignerOpenSSL,
// SignerGo, or SignerKey (a token's key, or any other crypto.Signer).
func (s *Seal) Signer() string { return s.signer }

// Algorithm returns the signature algorithm the seal's key signs with:
// rsa-sha256 or ecdsa-sha256.
func (s *Seal) Algorithm() string { return s.algorithm }

// Certificate returns the QSealC.
func (s *Seal) Certificate() *x509.Certificate { return s.cert }

// KeyID returns the keyId the Signature names: "SN=<hex>,CA=<issuer DN>".
func (s *Seal) KeyID() string { return s.keyID }

// Sign seals a response whose body is exactly body: it sets Digest (SHA-256
// of body), Date (now, unless h has one), the Signature over the Headers
// present, and CertificateHeader. A signed header present more than once
// is an error (the response cannot be signed unambiguously).
func (s *Seal) Sign(h http.Header, body []byte, now time.Time) error {
	sum := sha256.Sum256(body)
	h.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	if h.Get("Date") == "" {
		h.Set("Date", now.UTC().Format(http.TimeFormat))
	}
	names := Headers
	if len(h.Values("X-Request-Id")) == 0 {
		names = Headers[:2]
	}
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer s.bufs.Put(bp)
	signing, err := signature.AppendSigningString((*bp)[:0], names, "", "", h)
	*bp = signing
	if err != nil {
		return err
	}
	digest := sha256.Sum256(signing)
	// RSA: PKCS #1 v1.5, deterministic. ECDSA: the ASN.1 DER of r and s,
	// deterministic too (RFC 6979, with a nil random source): no entropy
	// drawn per answer, and a TPP verifies it as any ECDSA signature.
	sig, err := s.key.Sign(nil, digest[:], crypto.SHA256)
	if err != nil {
		return err
	}
	v := signature.Format(s.keyID, s.algorithm, names, sig)
	h.Set("Signature", v)
	h.Set(CertificateHeader, s.certHeader)
	return nil
}
