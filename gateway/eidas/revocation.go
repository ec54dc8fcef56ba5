package eidas

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// RevocationChecker reports whether a certificate is revoked. issuer is the
// certificate that signed cert in the verified chain. An error means the
// status is unknown; the Verifier then rejects the certificate.
type RevocationChecker interface {
	Revoked(cert, issuer *x509.Certificate) (bool, error)
}

// CRLChecker answers revocation from CRLs loaded once, for deployments that
// distribute CRLs as files. It is safe for concurrent use.
type CRLChecker struct {
	crls []loadedCRL
	// Now returns the current time for the staleness check; nil means
	// time.Now.
	Now func() time.Time
}

// loadedCRL is one verified CRL reduced to what lookups need.
type loadedCRL struct {
	issuerName    string // the CA's subject, for NextUpdates
	issuerSubject []byte // RawSubject of the CA that signed the CRL
	issuerKey     []byte // its RawSubjectPublicKeyInfo
	nextUpdate    time.Time
	serials       map[string]struct{} // big-endian serial bytes
}

// LoadCRLs reads the "X509 CRL" PEM blocks of pemBytes and checks each CRL's
// signature against the issuer in issuers whose subject matches. It fails on
// any other block type, a CRL that does not parse, or a CRL no given issuer
// signed, so a misconfigured file is found at startup rather than ignored.
func LoadCRLs(pemBytes []byte, issuers []*x509.Certificate) (*CRLChecker, error) {
	c := &CRLChecker{}
	rest := pemBytes
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "X509 CRL" {
			return nil, fmt.Errorf("eidas: PEM block %d is %q, want \"X509 CRL\"", n, block.Type)
		}
		crl, err := x509.ParseRevocationList(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("eidas: CRL %d: %w", n, err)
		}
		issuer := crlIssuer(crl, issuers)
		if issuer == nil {
			return nil, fmt.Errorf("eidas: CRL %d from %q is not signed by any configured issuer", n, crl.Issuer.String())
		}
		l := loadedCRL{
			issuerName:    issuerName(issuer),
			issuerSubject: issuer.RawSubject,
			issuerKey:     issuer.RawSubjectPublicKeyInfo,
			nextUpdate:    crl.NextUpdate,
			serials:       make(map[string]struct{}, len(crl.RevokedCertificateEntries)),
		}
		for _, e := range crl.RevokedCertificateEntries {
			l.serials[string(e.SerialNumber.Bytes())] = struct{}{}
		}
		c.crls = append(c.crls, l)
	}
	if len(c.crls) == 0 {
		return nil, errors.New("eidas: no X509 CRL PEM block found")
	}
	return c, nil
}

// CRLValidity is how long one loaded CRL can answer.
type CRLValidity struct {
	// Issuer names the CA that issued the CRL: its subject's common
	// name, or the whole subject when it has none.
	Issuer string
	// NextUpdate is the CRL's nextUpdate (zero when it has none): past
	// it, a certificate of that CA the CRL does not list is refused as
	// of unknown status.
	NextUpdate time.Time
}

// NextUpdates returns the validity of each loaded CRL, in the file's
// order, so that a deployment can be warned before a CRL goes stale.
func (c *CRLChecker) NextUpdates() []CRLValidity {
	out := make([]CRLValidity, len(c.crls))
	for i, l := range c.crls {
		out[i] = CRLValidity{Issuer: l.issuerName, NextUpdate: l.nextUpdate}
	}
	return out
}

// issuerName is how NextUpdates names a CA.
func issuerName(ca *x509.Certificate) string {
	if ca.Subject.CommonName != "" {
		return ca.Subject.CommonName
	}
	return ca.Subject.String()
}

// crlIssuer returns the issuer whose subject matches the CRL's issuer and
// whose key verifies its signature.
func crlIssuer(crl *x509.RevocationList, issuers []*x509.Certificate) *x509.Certificate {
	for _, is := range issuers {
		if bytes.Equal(crl.RawIssuer, is.RawSubject) && crl.CheckSignatureFrom(is) == nil {
			return is
		}
	}
	return nil
}

// Revoked reports whether cert's serial is listed in a CRL of issuer (same
// subject and key). A certificate whose issuer has no loaded CRL is not
// revoked. It returns an error when cert was not issued by issuer, or when
// a matching CRL that does not list cert is past its nextUpdate, since its
// "good" is then stale; a revocation it lists still counts.
func (c *CRLChecker) Revoked(cert, issuer *x509.Certificate) (bool, error) {
	if !bytes.Equal(cert.RawIssuer, issuer.RawSubject) {
		return false, errors.New("eidas: CRL check: certificate issuer name does not match the issuer's subject")
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	serial := cert.SerialNumber.Bytes()
	for i := range c.crls {
		l := &c.crls[i]
		if !bytes.Equal(l.issuerSubject, issuer.RawSubject) || !bytes.Equal(l.issuerKey, issuer.RawSubjectPublicKeyInfo) {
			continue
		}
		if _, ok := l.serials[string(serial)]; ok {
			// Even a stale CRL proves a revocation it lists.
			return true, nil
		}
		if !l.nextUpdate.IsZero() && now.After(l.nextUpdate) {
			return false, fmt.Errorf("eidas: CRL of %q is stale since %s", issuer.Subject.CommonName, l.nextUpdate.UTC().Format(time.RFC3339))
		}
	}
	return false, nil
}
