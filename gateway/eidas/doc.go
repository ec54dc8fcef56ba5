// Package eidas checks the eIDAS PSD2 certificates a TPP presents: the
// qualified electronic seal certificate (QSealC) sent in the
// TPP-Signature-Certificate header and the qualified website authentication
// certificate (QWAC) used as a TLS client certificate.
//
// It parses the header value (ParseCertificate), the QCStatements extension
// of RFC 3739, EN 319 412-5 and ETSI TS 119 495 (ParseQCStatements), and
// verifies a certificate against configured QTSP anchors (Verifier). Every
// rejection is an *Error whose Kind maps to a Berlin Group code, so callers
// never have to interpret error strings.
//
// Revocation is answered by a RevocationChecker: OCSPChecker (OCSP with a
// fallback), CRLFetcher (CRLs from the certificate's distribution points)
// or CRLChecker (CRLs from files). They cache what they learn, and they are
// the package's only network I/O; a revocation always wins and an unknown
// status fails closed (KindUnavailable).
//
// The package knows nothing of Caddy or of the gateway's request handling;
// caching of verification results by certificate fingerprint is the
// caller's job.
package eidas
