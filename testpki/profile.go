package testpki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"time"
)

// CertificateKind says which eIDAS PSD2 certificate a profile describes.
type CertificateKind int

const (
	// Seal is a QSealC: the TPP-Signature-Certificate.
	Seal CertificateKind = iota
	// Web is a QWAC: the TLS client certificate.
	Web
)

// pdsURL is the PKI disclosure statement location put in every TPP
// certificate (a QcPDS statement the gateway must skip).
const pdsURL = "https://qtsp.example/pds_en.pdf"

// CertificateProfile describes a TPP certificate. Template turns it into an
// x509 template that tests may modify further before issuing it.
type CertificateProfile struct {
	Kind CertificateKind
	// Name is the organisation name (subject O).
	Name string
	// OrganizationIdentifier is the subject 2.5.4.97, e.g.
	// "PSDNO-FSA-987654321".
	OrganizationIdentifier string
	// Roles are PSD2 role names such as "PSP_AI".
	Roles []string
	// NoPSD2 leaves out the PSD2 statement (Roles are then ignored).
	NoPSD2 bool
	// NCAName and NCAID default to the Norwegian FSA.
	NCAName, NCAID string
	// DNSName is the QWAC's commonName and DNS SAN; ignored for seals.
	DNSName string
	// NotBefore and NotAfter bound the validity.
	NotBefore, NotAfter time.Time
	// OCSPServer and CRLDistributionPoints, if set, name where the
	// certificate's revocation status is published (authority information
	// access id-ad-ocsp and the CRL distribution points extension).
	OCSPServer, CRLDistributionPoints []string
}

// Template returns the certificate template of p: subject C=NO, O=Name,
// CN, organizationIdentifier; QcCompliance, QcType (eseal or web), QcPDS and
// the PSD2 statement; the revocation URLs, if any; for a Seal key usage
// digitalSignature and contentCommitment and no extended key usage; for a
// Web certificate key usage digitalSignature, extended key usage serverAuth
// and clientAuth.
func (p CertificateProfile) Template() (*x509.Certificate, error) {
	serial, err := NewSerial()
	if err != nil {
		return nil, err
	}
	qc := QCStatementsSpec{Compliance: true, PDSURL: pdsURL}
	if !p.NoPSD2 {
		roles, err := Roles(p.Roles...)
		if err != nil {
			return nil, err
		}
		qc.PSD2 = &PSD2Spec{Roles: roles, NCAName: p.NCAName, NCAID: p.NCAID}
		if qc.PSD2.NCAName == "" {
			qc.PSD2.NCAName = NCAName
		}
		if qc.PSD2.NCAID == "" {
			qc.PSD2.NCAID = NCAID
		}
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		NotBefore:             p.NotBefore,
		NotAfter:              p.NotAfter,
		OCSPServer:            p.OCSPServer,
		CRLDistributionPoints: p.CRLDistributionPoints,
		Subject: pkix.Name{
			Country:      []string{"NO"},
			Organization: []string{p.Name},
			CommonName:   p.Name,
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: OIDOrganizationID, Value: p.OrganizationIdentifier}},
		},
	}
	switch p.Kind {
	case Seal:
		qc.Types = append(qc.Types, OIDQcTypeESeal)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment
		tmpl.Policies = []x509.OID{mustOID(0, 4, 0, 194112, 1, 1)} // QCP-l
	case Web:
		qc.Types = append(qc.Types, OIDQcTypeWeb)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tmpl.Policies = []x509.OID{mustOID(0, 4, 0, 194112, 1, 4), mustOID(0, 4, 0, 19495, 3, 1)} // QCP-w, qcp-web-psd2
		if p.DNSName != "" {
			tmpl.Subject.CommonName = p.DNSName
			tmpl.DNSNames = []string{p.DNSName}
		}
	default:
		return nil, fmt.Errorf("testpki: unknown certificate kind %d", p.Kind)
	}
	ext, err := MarshalQCStatements(qc)
	if err != nil {
		return nil, err
	}
	tmpl.ExtraExtensions = []pkix.Extension{{Id: OIDQCStatements, Value: ext}}
	return tmpl, nil
}

func mustOID(arcs ...uint64) x509.OID {
	oid, err := x509.OIDFromInts(arcs)
	if err != nil {
		panic(err)
	}
	return oid
}
