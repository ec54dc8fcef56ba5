package gateway

import (
	"crypto/sha256"
	"crypto/x509"
	"time"

	"github.com/obgw/obgw/bgerror"
)

// checkQWAC verifies the mTLS client certificate, when one was presented
// (or required), and demands the same organizationIdentifier as the QSealC.
func (v *Verifier) checkQWAC(cert *x509.Certificate, orgID string, p *Policy, now time.Time) *bgerror.Error {
	if cert == nil {
		if p.RequireQWAC {
			return bgerror.New(bgerror.CodeCertificateMissing, "this service needs a QWAC as TLS client certificate")
		}
		return nil
	}
	key := sha256.Sum256(cert.Raw)
	e, ok := v.qwacs.Get(key)
	if !ok || !now.Before(e.expires) {
		e = &certEntry{expires: now.Add(negativeCertTTL)}
		id, err := v.cfg.Certificates.VerifyWeb(cert)
		if err != nil {
			e.err = certError(err)
		} else {
			e.identity = id
			e.expires = now.Add(v.cfg.CertCacheTTL)
			if id.NotAfter.Before(e.expires) {
				e.expires = id.NotAfter
			}
		}
		v.qwacs.Add(key, e)
	}
	if e.err != nil {
		return e.err
	}
	if e.identity.OrganizationIdentifier != orgID {
		return bgerror.New(bgerror.CodeCertificateInvalid, "the QWAC and the QSealC name different organizationIdentifiers")
	}
	return nil
}
