// Package testpki generates the test PKI obgw's tests, examples and sandbox
// use: a QTSP root and issuing CA, eIDAS PSD2 QSealCs and QWACs for a fixed
// set of test TPPs (good ones and deliberately bad ones), a CRL, a registry
// file, a localhost TLS server certificate from a separate bank CA, and the
// client certificate a gateway presents to a split backend, from a third CA.
//
// The organisation identifiers and TPP names are fixed so that docs and
// tests can name them; keys and serial numbers are fresh on every Generate.
// Certificates are valid for decades so that committed test data does not
// expire under its users. The QCStatements encoder here is written
// independently of the gateway's parser so that each checks the other.
//
// For revocation tests it also serves what a QTSP publishes, as
// http.Handlers to run on loopback: an OCSP responder (OCSPResponder,
// written from RFC 6960 independently of the gateway's OCSP client) and a
// CRL distribution point (CRLDistributionPoint); IssueTPPCertificate issues
// TPP certificates naming their URLs.
//
// Everything here is for tests only: the private keys are written in clear.
package testpki
