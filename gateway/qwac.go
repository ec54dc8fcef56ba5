package gateway

import (
	"crypto/sha256"
	"crypto/x509"
	"time"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/eidas"
)

// checkQWAC verifies the mTLS client certificate, when one was presented
// (or required), and demands the same organizationIdentifier as the QSealC.
// It returns the check's decision when it does not fail: skip without a
// client certificate, error_allowed when only the QWAC's revocation status
// is unknown and the policy says on_error ocsp allow, else pass.
func (v *Verifier) checkQWAC(cert *x509.Certificate, orgID string, p *Policy, now time.Time) (Decision, *bgerror.Error) {
	if cert == nil {
		if p.RequireQWAC {
			return DecisionFail, bgerror.New(bgerror.CodeCertificateMissing, "this service needs a QWAC as TLS client certificate")
		}
		return DecisionSkip, nil
	}
	key := sha256.Sum256(cert.Raw)
	e, ok := v.qwacs.Get(key)
	if !ok || !now.Before(e.expires) {
		e = &certEntry{expires: now.Add(negativeCertTTL)}
		id, err := v.cfg.Certificates.VerifyWeb(cert)
		switch {
		case err == nil:
			e.identity = id
			e.expires = now.Add(v.cfg.CertCacheTTL)
			if id.NotAfter.Before(e.expires) {
				e.expires = id.NotAfter
			}
		case eidas.KindOf(err) == eidas.KindUnavailable:
			// An outage is not a verdict: ask again next time. Verified
			// but for revocation, on_error ocsp decides.
			e.err = certError(err)
			e.expires = now
			e.identity, e.revocationUnknown = id, id != nil
		default:
			e.err = certError(err)
		}
		v.qwacs.Add(key, e)
	}
	d := DecisionPass
	if e.err != nil {
		if !e.revocationAllowed(p) {
			return DecisionFail, e.err
		}
		d = DecisionErrorAllowed
	}
	if e.identity.OrganizationIdentifier != orgID {
		return DecisionFail, bgerror.New(bgerror.CodeCertificateInvalid, "the QWAC and the QSealC name different organizationIdentifiers")
	}
	return d, nil
}
