package testpki

import (
	"fmt"
	"slices"
)

// RevocationURLs name where a certificate's revocation status is
// published.
type RevocationURLs struct {
	// OCSP is the OCSP responder URL, put in the authority information
	// access extension (id-ad-ocsp).
	OCSP string
	// CRL is the URL put in the CRL distribution points extension.
	CRL string
}

// IssueTPPCertificate issues another certificate of kind for the TPP id,
// with the profile, key size, validity and issuer Generate gave its
// certificates, naming urls for revocation checking (empty URLs are left
// out). The generated certificates name no revocation URLs, so tests use
// this to point a revocation checker at a loopback server. The new
// certificate is in neither p.CRL nor any responder's revoked list. It
// needs the CA keys, so it fails on a loaded PKI.
func (p *PKI) IssueTPPCertificate(id string, kind CertificateKind, urls RevocationURLs) (*KeyPair, error) {
	i := slices.IndexFunc(tppSpecs, func(s tppSpec) bool { return s.id == id })
	t := p.TPP(id)
	if i < 0 || t == nil {
		return nil, fmt.Errorf("testpki: no TPP %q", id)
	}
	s := tppSpecs[i]
	issuer := p.Issuing
	if s.untrusted {
		issuer = p.Impostor
	}
	if issuer == nil {
		return nil, fmt.Errorf("testpki: the CA of TPP %s is not available (loaded PKI?)", id)
	}
	like := t.Seal.Certificate
	if kind == Web {
		like = t.Web.Certificate
	}
	prof := s.profile(kind, like.NotBefore, like.NotAfter)
	// The TPP's own identifier: an unpublished PKI numbers its TPPs
	// otherwise than tppSpecs.
	prof.OrganizationIdentifier = t.OrganizationIdentifier
	if urls.OCSP != "" {
		prof.OCSPServer = []string{urls.OCSP}
	}
	if urls.CRL != "" {
		prof.CRLDistributionPoints = []string{urls.CRL}
	}
	tmpl, err := prof.Template()
	if err != nil {
		return nil, err
	}
	bits := s.bits
	if bits == 0 {
		bits = 2048
	}
	kp, err := issuer.IssueKeyPair(tmpl, bits)
	if err != nil {
		return nil, fmt.Errorf("testpki: TPP %s: %w", id, err)
	}
	return kp, nil
}

// OCSPResponder returns a responder for the Issuing CA that signs with
// the CA's key and answers "revoked" for the certificates p.CRL lists and
// "good" for every other certificate of the CA. Append to its Revoked
// field before serving to revoke more (such as ones IssueTPPCertificate
// made). On a loaded PKI it has no key and answers internalError.
func (p *PKI) OCSPResponder() *OCSPResponder {
	r := &OCSPResponder{Issuer: p.Issuing.Certificate, Revoked: slices.Clone(p.CRL.RevokedCertificateEntries)}
	if p.Issuing.Key != nil {
		r.Key = p.Issuing.Key
	}
	return r
}

// CRLDistributionPoint returns a distribution point serving p.CRL.
func (p *PKI) CRLDistributionPoint() *CRLDistributionPoint {
	return NewCRLDistributionPoint(p.CRL)
}
