package published

import (
	"crypto/x509"
	"slices"
)

// markOID is the certificate policy every certificate of the test PKI
// generator carries: an OID under 2.25 (ITU-T X.667, an OID made of a
// UUID, 423fcc3b-e4d3-4ae2-96df-34454ad1f178), which no registry hands out
// to anyone else. A policy rather than an extension of its own, because
// a 128-bit arc fits x509.OID and not asn1.ObjectIdentifier.
var markOID = mustOID("2.25.88060304780730894256771811440524915064")

func mustOID(s string) x509.OID {
	oid, err := x509.ParseOID(s)
	if err != nil {
		panic(err)
	}
	return oid
}

// Mark adds the test PKI's policy to tmpl: the generator marks
// every certificate template with it.
func Mark(tmpl *x509.Certificate) {
	if !marked(tmpl) {
		tmpl.Policies = append(tmpl.Policies, markOID)
	}
}

// marked reports whether c names the test PKI's policy.
func marked(c *x509.Certificate) bool {
	return slices.ContainsFunc(c.Policies, markOID.Equal)
}

// Certificate reports whether c is the test PKI's: marked, or its public
// key is one of testdata/pki's.
func Certificate(c *x509.Certificate) bool {
	return marked(c) || PublicKey(c.PublicKey)
}

// CRL reports whether l is one of testdata/pki's CRLs. A CRL that the
// generator makes afresh is refused with its issuer: it loads only with
// its CA among the trusted ones (eidas.LoadCRLs), and Certificate
// recognises that CA.
func CRL(l *x509.RevocationList) bool {
	return knownCRLs[fingerprint(l.Raw)]
}
