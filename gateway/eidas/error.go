package eidas

import "errors"

// Kind classifies why a certificate was rejected, so that callers can map a
// rejection to a Berlin Group error code without parsing messages.
type Kind int

const (
	// KindInvalid: unparseable, untrusted, wrong key or key usage, missing
	// or malformed QCStatements (CERTIFICATE_INVALID). It is the zero value,
	// so an Error built without a Kind still fails closed.
	KindInvalid Kind = iota
	// KindExpired: the certificate is expired or not yet valid
	// (CERTIFICATE_EXPIRED).
	KindExpired
	// KindRevoked: the certificate is listed as revoked (CERTIFICATE_REVOKED).
	KindRevoked
	// KindUnavailable: revocation status could not be established, for
	// example a stale CRL or an unreachable responder. The certificate is
	// not accepted (fail closed); callers map it to SERVICE_UNAVAILABLE, or
	// to CERTIFICATE_INVALID if they do not distinguish outages.
	KindUnavailable
)

// String returns the Berlin Group code the kind maps to (SERVICE_UNAVAILABLE
// for KindUnavailable).
func (k Kind) String() string {
	switch k {
	case KindExpired:
		return "CERTIFICATE_EXPIRED"
	case KindRevoked:
		return "CERTIFICATE_REVOKED"
	case KindUnavailable:
		return "SERVICE_UNAVAILABLE"
	default:
		return "CERTIFICATE_INVALID"
	}
}

// Error is the error returned for every rejected certificate.
type Error struct {
	// Kind says which Berlin Group code applies.
	Kind Kind
	// Reason says what was wrong and how to fix it, in under 200
	// characters. It is safe to send to the TPP: it never contains the
	// certificate or key material.
	Reason string
	// Err is the underlying cause, if any, for logs only: it may name
	// internal configuration and is not meant for the TPP.
	Err error
}

// Error returns Reason.
func (e *Error) Error() string { return e.Reason }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err if it is or wraps an *Error, and KindInvalid
// otherwise, so that unknown errors fail closed.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInvalid
}

func invalid(reason string) *Error { return &Error{Kind: KindInvalid, Reason: reason} }
