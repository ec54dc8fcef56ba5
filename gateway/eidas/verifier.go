package eidas

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"time"

	"github.com/obgw/obgw/gateway/trustlist"
)

// Verifier checks TPP certificates against configured QTSP anchors. Its
// fields are read-only after construction; one Verifier may be used by many
// goroutines at once.
type Verifier struct {
	// Roots are the trusted QTSP CAs (from the EU Trusted List in
	// production). Required: a nil pool rejects every certificate rather
	// than falling back to the system roots.
	Roots *x509.CertPool
	// Intermediates are issuing CAs that may complete a chain to Roots. Go
	// does not fetch AIA intermediates, so configure them here or in Roots.
	Intermediates *x509.CertPool
	// TrustedLists, when set, decides instead of Roots: the CAs the EU
	// trusted lists name as qualified for the certificate's use (seals,
	// website authentication), each judged by its status when the
	// certificate was issued (package trustlist). It returns the anchors
	// in use; nil (none loaded yet) rejects with KindUnavailable.
	TrustedLists func() *trustlist.Anchors
	// Revocation, if set, is asked about every certificate of the chain
	// except its anchor. An error from it rejects the certificate with
	// KindUnavailable (fail closed). Nil skips revocation checking.
	Revocation RevocationChecker
	// Now returns the current time; nil means time.Now. Tests swap it.
	Now func() time.Time
}

// Identity is what a verified certificate says about the TPP.
type Identity struct {
	// OrganizationIdentifier is the subject's 2.5.4.97, e.g.
	// "PSDNO-FSA-987654321": the key for registry lookups.
	OrganizationIdentifier string
	// Name is the subject organizationName, or the commonName if there is
	// no O.
	Name string
	// Roles are the PSD2 roles the certificate grants (RolePaymentInitiation,
	// ...). The registry is authoritative; intersect with its roles.
	Roles []string
	// NCAName and NCAID name the competent authority of the PSD2 statement.
	NCAName, NCAID string
	// NotAfter is the earliest expiry in the verified chain: cache the
	// result no longer than this.
	NotAfter time.Time
	// Fingerprint is the SHA-256 of the certificate's DER.
	Fingerprint [32]byte
	// Certificate is the verified certificate itself.
	Certificate *x509.Certificate
}

// profile is what distinguishes a QSealC check from a QWAC check.
type profile struct {
	name      string // for messages: "QSealC" or "QWAC"
	extUsage  x509.ExtKeyUsage
	chainEKU  []x509.ExtKeyUsage // extUsage as x509.VerifyOptions wants it
	keyUsages x509.KeyUsage      // at least one must be set
	usageText string
	qcType    func(*QCStatements) bool
	typeText  string
	use       trustlist.Use // what a trusted list must grant the CA for
}

var (
	sealProfile = profile{
		name:      "QSealC",
		extUsage:  x509.ExtKeyUsageAny,
		chainEKU:  []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
		keyUsages: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		usageText: "QSealC key usage must include digitalSignature or nonRepudiation",
		qcType:    func(q *QCStatements) bool { return q.ESeal },
		typeText:  "QSealC must have QcType eseal (0.4.0.1862.1.6.2); send your seal certificate, not the QWAC",
		use:       trustlist.UseSeal,
	}
	webProfile = profile{
		name:      "QWAC",
		extUsage:  x509.ExtKeyUsageClientAuth,
		chainEKU:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		keyUsages: x509.KeyUsageDigitalSignature,
		usageText: "QWAC key usage must include digitalSignature",
		qcType:    func(q *QCStatements) bool { return q.Web },
		typeText:  "QWAC must have QcType web (0.4.0.1862.1.6.3); use your website certificate for TLS",
		use:       trustlist.UseWeb,
	}
)

// VerifySeal checks a QSealC (the TPP-Signature-Certificate): validity
// period, RSA key of 2048 to 4096 bits, key usage digitalSignature or
// nonRepudiation, QCStatements with QcCompliance, QcType eseal and the PSD2
// statement, an organizationIdentifier PSD<CC>-<NCA>-<number> whose prefix
// equals the NCA id, a chain to Roots (any extended key usage, since QSealCs
// often have none), and revocation. Errors are *Error.
//
// When everything but the revocation status verified and that status
// cannot be established (an outage: KindUnavailable), the Identity is
// returned together with the error, so that a caller whose policy accepts
// an unknown revocation status can go on. A revocation anywhere in the
// chain is KindRevoked and returns no Identity.
func (v *Verifier) VerifySeal(c *x509.Certificate) (*Identity, error) {
	return v.verify(c, &sealProfile)
}

// VerifyWeb checks a QWAC presented as TLS client certificate as VerifySeal
// does, but requires extended key usage clientAuth, key usage
// digitalSignature and QcType web.
func (v *Verifier) VerifyWeb(c *x509.Certificate) (*Identity, error) {
	return v.verify(c, &webProfile)
}

func (v *Verifier) verify(c *x509.Certificate, p *profile) (*Identity, error) {
	if c == nil {
		return nil, invalid("no certificate was presented")
	}
	roots := v.Roots
	var lists *trustlist.Anchors
	if v.TrustedLists != nil {
		if lists = v.TrustedLists(); lists == nil {
			return nil, &Error{Kind: KindUnavailable, Reason: "the EU trusted lists are not loaded yet", Err: errors.New("eidas: no trusted lists")}
		}
		roots = lists.Pool(p.use)
	}
	if roots == nil {
		return nil, &Error{Kind: KindUnavailable, Reason: "gateway has no trusted QTSP CAs configured", Err: errors.New("eidas: Verifier.Roots is nil")}
	}
	var now time.Time
	if v.Now != nil {
		now = v.Now()
	} else {
		now = time.Now()
	}
	// Validity first and explicitly, so that an expired certificate is
	// reported as such rather than as a generic chain error.
	if now.Before(c.NotBefore) {
		return nil, &Error{Kind: KindExpired, Reason: p.name + " is not valid before " + c.NotBefore.UTC().Format(time.RFC3339) + "; check its dates or wait"}
	}
	if now.After(c.NotAfter) {
		return nil, &Error{Kind: KindExpired, Reason: p.name + " expired at " + c.NotAfter.UTC().Format(time.RFC3339) + "; renew it with your QTSP"}
	}
	if err := checkKey(c); err != nil {
		return nil, err
	}
	if c.KeyUsage&p.keyUsages == 0 {
		return nil, invalid(p.usageText)
	}
	if p.extUsage != x509.ExtKeyUsageAny && !hasExtKeyUsage(c, p.extUsage) {
		return nil, invalid(p.name + " extended key usage must include clientAuth")
	}
	qc, err := certificateQCStatements(c)
	if err != nil {
		return nil, err
	}
	if !qc.Compliance {
		return nil, invalid(p.name + " lacks the QcCompliance statement; a qualified certificate from a QTSP is required")
	}
	if !p.qcType(qc) {
		return nil, invalid(p.typeText)
	}
	if qc.PSD2 == nil {
		return nil, invalid(p.name + " lacks the PSD2 QCStatement (ETSI TS 119 495); ask your QTSP for a PSD2 certificate")
	}
	if len(qc.PSD2.Roles) == 0 {
		return nil, invalid(p.name + " PSD2 statement grants none of the roles PSP_AS, PSP_PI, PSP_AI, PSP_IC")
	}
	orgID, ok := OrganizationIdentifier(c.Subject)
	if !ok {
		return nil, invalid(p.name + " subject needs exactly one organizationIdentifier (2.5.4.97)")
	}
	ncaID, _, ok := ParseOrganizationIdentifier(orgID)
	if !ok {
		return nil, invalid(p.name + " organizationIdentifier must have the form PSD<CC>-<NCA>-<number>, e.g. PSDNO-FSA-987654321")
	}
	if ncaID != qc.PSD2.NCAID {
		return nil, invalid(p.name + " organizationIdentifier prefix does not match the PSD2 statement's nCAId")
	}

	chains, err := verifiable(c).Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: v.Intermediates,
		CurrentTime:   now,
		KeyUsages:     p.chainEKU,
	})
	if err != nil && lists != nil {
		// A chain to a qualified CA not granted for this use: say so.
		if anyChains, aerr := verifiable(c).Verify(x509.VerifyOptions{Roots: lists.AnyPool(), Intermediates: v.Intermediates, CurrentTime: now, KeyUsages: p.chainEKU}); aerr == nil {
			if _, qerr := qualifiedChain(lists, anyChains, p); qerr != nil {
				return nil, qerr
			}
		}
	}
	if err != nil {
		return nil, chainError(p, err)
	}
	chain := chains[0]
	if lists != nil {
		if chain, err = qualifiedChain(lists, chains, p); err != nil {
			return nil, err
		}
	}
	var unknown error // revocation status unknown: returned with the identity
	if v.Revocation != nil {
		if err := v.checkRevocation(p, chain); err != nil {
			if KindOf(err) != KindUnavailable {
				return nil, err
			}
			unknown = err
		}
	}

	id := &Identity{
		OrganizationIdentifier: orgID,
		Name:                   c.Subject.CommonName,
		Roles:                  qc.PSD2.Roles,
		NCAName:                qc.PSD2.NCAName,
		NCAID:                  qc.PSD2.NCAID,
		NotAfter:               c.NotAfter,
		Fingerprint:            sha256.Sum256(c.Raw),
		Certificate:            c,
	}
	if len(c.Subject.Organization) > 0 && c.Subject.Organization[0] != "" {
		id.Name = c.Subject.Organization[0]
	}
	for _, ca := range chain[1:] {
		if ca.NotAfter.Before(id.NotAfter) {
			id.NotAfter = ca.NotAfter
		}
	}
	return id, unknown
}

// qualifiedChain is the first of chains whose CA the trusted lists held
// qualified for p's use when c was issued; else the first chain's
// refusal: KindUnavailable when that CA's list is stale, KindInvalid
// otherwise.
func qualifiedChain(lists *trustlist.Anchors, chains [][]*x509.Certificate, p *profile) ([]*x509.Certificate, error) {
	var first error
	for _, chain := range chains {
		err := lists.Qualified(chain, p.use)
		if err == nil {
			return chain, nil
		}
		if first == nil {
			first = err
		}
	}
	var u *trustlist.Unqualified
	if errors.As(first, &u) && u.Stale {
		return nil, &Error{Kind: KindUnavailable, Reason: u.Reason, Err: first}
	}
	return nil, &Error{Kind: KindInvalid, Reason: p.name + ": " + first.Error(), Err: first}
}

// checkRevocation asks the checker about each certificate of the chain
// except the anchor, passing the next certificate as its issuer. A status
// that cannot be established does not stop it: a revocation further up
// the chain still wins over KindUnavailable.
func (v *Verifier) checkRevocation(p *profile, chain []*x509.Certificate) error {
	var unknown error
	for i := 0; i+1 < len(chain); i++ {
		revoked, err := v.Revocation.Revoked(chain[i], chain[i+1])
		if err != nil {
			if unknown == nil {
				unknown = &Error{Kind: KindUnavailable, Reason: "revocation status of the " + p.name + " cannot be checked now; retry later", Err: err}
			}
			continue
		}
		if revoked {
			if i == 0 {
				return &Error{Kind: KindRevoked, Reason: p.name + " is revoked by its QTSP; obtain a new certificate"}
			}
			return &Error{Kind: KindRevoked, Reason: "a CA in the " + p.name + "'s chain is revoked; obtain a certificate from a valid CA"}
		}
	}
	return unknown
}

// certificateQCStatements parses the certificate's qcStatements extension.
func certificateQCStatements(c *x509.Certificate) (*QCStatements, error) {
	for i := range c.Extensions {
		if c.Extensions[i].Id.Equal(oidQCStatements) {
			return ParseQCStatements(c.Extensions[i].Value)
		}
	}
	return nil, invalid("certificate has no QCStatements extension; a qualified PSD2 certificate is required")
}

// verifiable returns c, or a shallow copy of c without qcStatements among
// its unhandled critical extensions: RFC 3739 allows marking it critical,
// this package processes it, and x509.Verify would otherwise reject it.
func verifiable(c *x509.Certificate) *x509.Certificate {
	if len(c.UnhandledCriticalExtensions) == 0 {
		return c
	}
	rest := make([]asn1.ObjectIdentifier, 0, len(c.UnhandledCriticalExtensions))
	for _, id := range c.UnhandledCriticalExtensions {
		if !id.Equal(oidQCStatements) {
			rest = append(rest, id)
		}
	}
	if len(rest) == len(c.UnhandledCriticalExtensions) {
		return c
	}
	cp := *c
	cp.UnhandledCriticalExtensions = rest
	return &cp
}

func hasExtKeyUsage(c *x509.Certificate, u x509.ExtKeyUsage) bool {
	for _, got := range c.ExtKeyUsage {
		if got == u {
			return true
		}
	}
	return false
}

// chainError turns an x509 verification error into an *Error.
func chainError(p *profile, err error) *Error {
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) {
		return &Error{Kind: KindInvalid, Reason: p.name + " does not chain to a trusted QTSP CA; use a certificate from a qualified trust service provider", Err: err}
	}
	var inv x509.CertificateInvalidError
	if errors.As(err, &inv) {
		switch inv.Reason {
		case x509.Expired:
			return &Error{Kind: KindInvalid, Reason: "a CA in the " + p.name + "'s chain is expired or not yet valid", Err: err}
		case x509.IncompatibleUsage:
			return &Error{Kind: KindInvalid, Reason: p.name + " chain does not allow this usage (extended key usage)", Err: err}
		}
	}
	return &Error{Kind: KindInvalid, Reason: p.name + " chain to the QTSP CA does not verify", Err: err}
}
