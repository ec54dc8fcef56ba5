package caddymodule

import (
	"crypto/x509"

	"github.com/obgw/obgw/gateway/eidas"
)

// validity is when what a configuration loaded stops serving: the CRLs of
// its crl file (past nextUpdate, the certificates of their CA are
// refused), its trusted QTSP CA certificates and the bank's seal (past
// its notAfter, TPPs refuse the answers obgw_sign signs with it). App.Start
// publishes it in obgw_crl_next_update_timestamp_seconds and
// obgw_certificate_expiry_timestamp_seconds, in place of the previous
// configuration's, so that an alert comes before the refusals do.
type validity struct {
	crls []eidas.CRLValidity
	cas  []*x509.Certificate
	// seal is bank_seal_cert's certificate (loadSeal), nil without one.
	seal *x509.Certificate
	// tls are the certificates the sites serve (siteCertificates, at
	// Start).
	tls []*x509.Certificate
}

// Kinds of obgw_certificate_expiry_timestamp_seconds.
const (
	certQTSPCA   = "qtsp_ca"
	certBankSeal = "bank_seal"
)

// publishValidity sets the gauges to v: per CA, the earliest end.
func (m *metrics) publishValidity(v validity) {
	crls := map[string]float64{}
	for _, c := range v.crls {
		if c.NextUpdate.IsZero() {
			continue
		}
		if t, ok := crls[c.Issuer]; !ok || float64(c.NextUpdate.Unix()) < t {
			crls[c.Issuer] = float64(c.NextUpdate.Unix())
		}
	}
	cas := map[string]float64{}
	for _, ca := range v.cas {
		name := subjectName(ca)
		if t, ok := cas[name]; !ok || float64(ca.NotAfter.Unix()) < t {
			cas[name] = float64(ca.NotAfter.Unix())
		}
	}
	m.crlNextUpdate.Reset()
	for issuer, t := range crls {
		m.crlNextUpdate.WithLabelValues(issuer).Set(t)
	}
	m.certExpiry.Reset()
	for subject, t := range cas {
		m.certExpiry.WithLabelValues(certQTSPCA, subject).Set(t)
	}
	if v.seal != nil {
		m.certExpiry.WithLabelValues(certBankSeal, subjectName(v.seal)).Set(float64(v.seal.NotAfter.Unix()))
	}
}

// subjectName is a certificate's label: its common name, else its whole
// subject.
func subjectName(c *x509.Certificate) string {
	if c.Subject.CommonName != "" {
		return c.Subject.CommonName
	}
	return c.Subject.String()
}
