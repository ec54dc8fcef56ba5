package gateway

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/signature"
)

// oidQCStatements is id-pe-qcStatements (RFC 3739).
var oidQCStatements = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}

// negativeCertTTL is how long a rejected certificate's verdict is reused.
// It keeps a client that repeats a bad certificate from making us build the
// chain each time, while a fixed deployment recovers quickly.
const negativeCertTTL = time.Minute

// certEntry is a cached certificate verdict.
type certEntry struct {
	identity       *eidas.Identity // nil when the certificate is unusable
	key            *signature.Key  // nil when the key is not usable RSA
	fingerprintHex string
	err            *bgerror.Error // the verdict when it failed
	expires        time.Time
	// keyID is the last keyId string seen to identify this certificate, so
	// the common case of one TPP sending the same keyId skips DN parsing.
	keyID atomic.Pointer[string]

	// revocationUnknown marks a certificate that verified except for its
	// revocation status, which could not be established (err is then
	// SERVICE_UNAVAILABLE and identity the verified one).
	revocationUnknown bool
}

// certificate returns the verified certificate of the request. Verified
// certificates are found by the SHA-256 of the header value (no decoding on
// the hot path) and, when that misses (the same certificate in other
// armour or whitespace), by the SHA-256 of the DER, so variants of one
// certificate cost a base64 decode, never a chain verification. On failure
// the entry is still returned when the certificate parses, so that a
// report_only certificate check can go on with an unverified identity.
func (v *Verifier) certificate(h http.Header, now time.Time) (*certEntry, *bgerror.Error) {
	vals := h["Tpp-Signature-Certificate"]
	if len(vals) == 0 || vals[0] == "" {
		return nil, bgerror.New(bgerror.CodeCertificateMissing, "TPP-Signature-Certificate is missing; send the QSealC as base64 DER")
	}
	key := headerDigest(vals[0])
	if e, ok := v.certs.Get(key); ok && now.Before(e.expires) {
		return e, nil
	}
	if e, ok := v.rejected.Get(key); ok && now.Before(e.expires) {
		return e, e.err
	}
	der, err := eidas.DecodeCertificate(vals[0])
	if err != nil {
		e := &certEntry{expires: now.Add(negativeCertTTL), err: certError(err)}
		v.rejected.Add(key, e)
		return e, e.err
	}
	derKey := sha256.Sum256(der)
	if e, ok := v.certDER.Get(derKey); ok && now.Before(e.expires) {
		v.certs.Add(key, e)
		return e, nil
	}
	e := v.verifyCertificate(der, derKey, now)
	if e.err != nil {
		v.rejected.Add(key, e)
		return e, e.err
	}
	v.certs.Add(key, e)
	v.certDER.Add(derKey, e)
	return e, nil
}

// headerBytesPool recycles the buffers headerDigest copies header values
// into: sha256 takes bytes, and converting a 1-2 KB header string would
// allocate a copy on every request.
var headerBytesPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// headerDigest is the SHA-256 of a header value.
func headerDigest(value string) [32]byte {
	bp := headerBytesPool.Get().(*[]byte)
	b := append((*bp)[:0], value...)
	sum := sha256.Sum256(b)
	*bp = b[:0]
	headerBytesPool.Put(bp)
	return sum
}

func (v *Verifier) verifyCertificate(der []byte, fp [32]byte, now time.Time) *certEntry {
	e := &certEntry{expires: now.Add(negativeCertTTL), fingerprintHex: hex.EncodeToString(fp[:])}
	cert, err := eidas.ParseCertificateDER(der)
	if err != nil {
		e.err = certError(err)
		return e
	}
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); ok {
		e.key, _ = signature.NewKey(pub)
	}
	id, err := v.cfg.Certificates.VerifySeal(cert)
	if err != nil {
		e.err = certError(err)
		if eidas.KindOf(err) == eidas.KindUnavailable {
			e.expires = now // an outage is not a verdict: ask again next time
			// Verified but for revocation: on_error ocsp decides.
			if id != nil {
				e.identity, e.revocationUnknown = id, true
				return e
			}
		}
		e.identity = unverifiedIdentity(cert)
		return e
	}
	e.identity = id
	e.expires = now.Add(v.cfg.CertCacheTTL)
	if id.NotAfter.Before(e.expires) {
		e.expires = id.NotAfter
	}
	return e
}

// unverifiedIdentity reads what a certificate claims without trusting it,
// for checks in report_only mode. Nil if it names no organizationIdentifier.
func unverifiedIdentity(cert *x509.Certificate) *eidas.Identity {
	org, ok := eidas.OrganizationIdentifier(cert.Subject)
	if !ok {
		return nil
	}
	id := &eidas.Identity{OrganizationIdentifier: org, Certificate: cert}
	if len(cert.Subject.Organization) > 0 {
		id.Name = cert.Subject.Organization[0]
	}
	for _, ext := range cert.Extensions {
		if ext.Id.Equal(oidQCStatements) {
			if qc, err := eidas.ParseQCStatements(ext.Value); err == nil && qc.PSD2 != nil {
				id.Roles = qc.PSD2.Roles
			}
		}
	}
	return id
}

// certError maps an eidas rejection to its Berlin Group error.
func certError(err error) *bgerror.Error {
	switch eidas.KindOf(err) {
	case eidas.KindExpired:
		return bgerror.New(bgerror.CodeCertificateExpired, err.Error())
	case eidas.KindRevoked:
		return bgerror.New(bgerror.CodeCertificateRevoked, err.Error())
	case eidas.KindUnavailable:
		var e *eidas.Error
		if errors.As(err, &e) && strings.Contains(e.Reason, "trusted list") {
			// The EU trusted lists not loaded, or the CA's list stale.
			return bgerror.New(bgerror.CodeServiceUnavailable, "the certificate's CA cannot be checked now: "+e.Reason+"; retry later")
		}
		return bgerror.New(bgerror.CodeServiceUnavailable, "the revocation status of the certificate cannot be established; retry later")
	default:
		return bgerror.New(bgerror.CodeCertificateInvalid, err.Error())
	}
}
