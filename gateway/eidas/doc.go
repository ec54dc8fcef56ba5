// Package eidas checks the eIDAS PSD2 certificates a TPP presents: the
// qualified electronic seal certificate (QSealC) sent in the
// TPP-Signature-Certificate header and the qualified website authentication
// certificate (QWAC) used as a TLS client certificate.
//
// It parses the header value (ParseCertificate), the QCStatements extension
// of RFC 3739, EN 319 412-5 and ETSI TS 119 495 (ParseQCStatements), and
// verifies a certificate against configured QTSP anchors (Verifier). Every
// rejection is an *Error whose Kind maps to a Berlin Group code, so callers
// never have to interpret error strings. The package knows nothing of HTTP or
// Caddy; caching of results by certificate fingerprint is the caller's job.
package eidas
