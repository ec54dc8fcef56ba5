package testpki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/obgw/obgw/testpki/published"
)

// Authority is a certificate authority that can issue certificates and CRLs.
// Key is nil for an Authority read back by Load.
type Authority struct {
	Certificate *x509.Certificate
	Key         *rsa.PrivateKey
	// chain holds the non-root CA certificates from this one upwards,
	// excluding a self-signed root, for KeyPair.Chain.
	chain []*x509.Certificate
	// unmarked: this CA and what it issues carry no test PKI mark
	// (GenerateUnpublished).
	unmarked bool
}

// KeyPair is an issued certificate and its private key.
type KeyPair struct {
	Certificate *x509.Certificate
	Key         *rsa.PrivateKey
	// Chain holds the intermediate CA certificates a peer needs besides
	// its trusted root, nearest first (the QTSP issuing CA for TPP
	// certificates; empty for ones issued directly by a root).
	Chain []*x509.Certificate
}

// ECKeyPair is a certificate with its ECDSA P-256 private key.
type ECKeyPair struct {
	Certificate *x509.Certificate
	Key         *ecdsa.PrivateKey
}

// HeaderValue returns the certificate as a TPP-Signature-Certificate header
// value: base64 DER, no armour.
func (k *KeyPair) HeaderValue() string {
	return base64.StdEncoding.EncodeToString(k.Certificate.Raw)
}

// KeyID returns the Signature keyId a TPP client would send for this
// certificate: SN=<upper-case hex serial>,CA=<issuer DN as Go prints it>.
func (k *KeyPair) KeyID() string {
	return "SN=" + strings.ToUpper(k.Certificate.SerialNumber.Text(16)) + ",CA=" + k.Certificate.Issuer.String()
}

// TLSCertificate returns the key pair for a tls.Config, with the chain so
// that the peer can build a path to its root.
func (k *KeyPair) TLSCertificate() tls.Certificate {
	der := [][]byte{k.Certificate.Raw}
	for _, c := range k.Chain {
		der = append(der, c.Raw)
	}
	return tls.Certificate{Certificate: der, PrivateKey: k.Key, Leaf: k.Certificate}
}

// NewRootAuthority creates a self-signed CA with a fresh RSA key of bits.
// It and every certificate it issues carry the test PKI's mark (package
// published), which production deployments refuse.
func NewRootAuthority(subject pkix.Name, notBefore, notAfter time.Time, bits int) (*Authority, error) {
	return newRootAuthority(subject, notBefore, notAfter, bits, false)
}

func newRootAuthority(subject pkix.Name, notBefore, notAfter time.Time, bits int, unmarked bool) (*Authority, error) {
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, fmt.Errorf("testpki: generating key for %s: %w", subject.CommonName, err)
	}
	tmpl, err := caTemplate(subject, notBefore, notAfter, false)
	if err != nil {
		return nil, err
	}
	if !unmarked {
		published.Mark(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("testpki: creating %s: %w", subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("testpki: parsing %s: %w", subject.CommonName, err)
	}
	return &Authority{Certificate: cert, Key: key, unmarked: unmarked}, nil
}

// NewSubordinate creates a CA issued by a that may issue end-entity
// certificates only (path length zero).
func (a *Authority) NewSubordinate(subject pkix.Name, notBefore, notAfter time.Time, bits int) (*Authority, error) {
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, fmt.Errorf("testpki: generating key for %s: %w", subject.CommonName, err)
	}
	tmpl, err := caTemplate(subject, notBefore, notAfter, true)
	if err != nil {
		return nil, err
	}
	cert, err := a.Issue(tmpl, &key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &Authority{Certificate: cert, Key: key, chain: append([]*x509.Certificate{cert}, a.chain...), unmarked: a.unmarked}, nil
}

// Issue signs tmpl for pub with SHA-256 and RSA PKCS #1 v1.5, adding the
// test PKI's mark to tmpl's policies unless a is unmarked.
func (a *Authority) Issue(tmpl *x509.Certificate, pub crypto.PublicKey) (*x509.Certificate, error) {
	if a.Key == nil {
		return nil, fmt.Errorf("testpki: %s has no private key (loaded from disk?)", a.Certificate.Subject.CommonName)
	}
	if !a.unmarked {
		published.Mark(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Certificate, pub, a.Key)
	if err != nil {
		return nil, fmt.Errorf("testpki: issuing %s: %w", tmpl.Subject.CommonName, err)
	}
	return x509.ParseCertificate(der)
}

// IssueKeyPair generates an RSA key of bits and issues tmpl for it.
func (a *Authority) IssueKeyPair(tmpl *x509.Certificate, bits int) (*KeyPair, error) {
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, fmt.Errorf("testpki: generating key for %s: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := a.Issue(tmpl, &key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Certificate: cert, Key: key, Chain: a.chain}, nil
}

// IssueECKeyPair generates an ECDSA P-256 key and issues tmpl for it.
func (a *Authority) IssueECKeyPair(tmpl *x509.Certificate) (*ECKeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("testpki: generating key for %s: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := a.Issue(tmpl, &key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &ECKeyPair{Certificate: cert, Key: key}, nil
}

// RevocationList issues a CRL listing serials, revoked at thisUpdate.
func (a *Authority) RevocationList(number int64, serials []*big.Int, thisUpdate, nextUpdate time.Time) (*x509.RevocationList, error) {
	if a.Key == nil {
		return nil, fmt.Errorf("testpki: %s has no private key (loaded from disk?)", a.Certificate.Subject.CommonName)
	}
	tmpl := &x509.RevocationList{
		Number:     big.NewInt(number),
		ThisUpdate: thisUpdate,
		NextUpdate: nextUpdate,
	}
	for _, s := range serials {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries, x509.RevocationListEntry{
			SerialNumber:   s,
			RevocationTime: thisUpdate,
			ReasonCode:     1, // keyCompromise
		})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, a.Certificate, a.Key)
	if err != nil {
		return nil, fmt.Errorf("testpki: CRL of %s: %w", a.Certificate.Subject.CommonName, err)
	}
	return x509.ParseRevocationList(der)
}

func caTemplate(subject pkix.Name, notBefore, notAfter time.Time, pathLenZero bool) (*x509.Certificate, error) {
	serial, err := NewSerial()
	if err != nil {
		return nil, err
	}
	return &x509.Certificate{
		SerialNumber:          serial,
		Subject:               subject,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        pathLenZero,
	}, nil
}

// NewSerial returns a random positive 127-bit serial number. Its top bits
// are 01, so it always prints as 32 hex digits and encodes in 16 bytes.
func NewSerial() (*big.Int, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("testpki: serial number: %w", err)
	}
	b[0] = b[0]&0x3f | 0x40
	return new(big.Int).SetBytes(b[:]), nil
}
