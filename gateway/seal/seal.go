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
// The algorithm is rsa-sha256, the one this dialect defines, with an RSA
// QSealC: a TPP of this dialect verifies the bank's signature with the
// algorithm it signs with. It costs about 1.4 ms per response on the
// reference machine's cores (BenchmarkSign), most of a signed read's CPU.
package seal

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/obgw/obgw/gateway/signature"
	"github.com/obgw/obgw/tppclient"
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
	key        *rsa.PrivateKey
	cert       *x509.Certificate
	keyID      string
	certHeader string
	bufs       sync.Pool
}

// Load reads a Seal from a PEM certificate (the QSealC; further
// certificates, its chain, are ignored) and the PEM private key of its
// public key (PKCS #8 or PKCS #1 RSA, unencrypted).
func Load(certPEM, keyPEM []byte) (*Seal, error) {
	// The TPP's signer parses the same pair and derives the keyId the
	// same way: a bank's seal is a QSealC like a TPP's.
	s, err := tppclient.NewSigner(keyPEM, certPEM)
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "tppclient: ", "", 1))
	}
	cert, err := x509.ParseCertificate(s.Certificate)
	if err != nil {
		return nil, err
	}
	if now := time.Now(); now.After(cert.NotAfter) {
		return nil, fmt.Errorf("the seal certificate %q expired on %s", cert.Subject.CommonName, cert.NotAfter.Format(time.DateOnly))
	}
	if cert.KeyUsage != 0 && cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return nil, errors.New("the seal certificate's key usage allows no signatures (digitalSignature or nonRepudiation)")
	}
	keyID, err := tppclient.DefaultKeyID(cert)
	if err != nil {
		return nil, err
	}
	return &Seal{
		key:        s.Key,
		cert:       cert,
		keyID:      keyID,
		certHeader: base64.StdEncoding.EncodeToString(s.Certificate),
	}, nil
}

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
	sig, err := rsa.SignPKCS1v15(nil, s.key, crypto.SHA256, digest[:])
	if err != nil {
		return err
	}
	v := signature.Format(s.keyID, names, sig)
	h.Set("Signature", v)
	h.Set(CertificateHeader, s.certHeader)
	return nil
}
