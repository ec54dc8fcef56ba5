// Package hygiene holds the request hygiene checks that run first on every
// request, before any certificate, registry or signature work: the character
// rules for JSON bodies and header values (contract section 1) and the
// format rules for the Berlin Group request headers (contract section 3,
// "Header formats").
//
// Every check returns nil or an *Error that names the JSON path or header
// and says what is wrong; the caller maps it to 400 FORMAT_ERROR. The checks
// are allocation-free on valid input: CheckJSON scans the body in one pass
// without building it, and the paths in errors are rendered only when an
// error is found.
//
// Decisions the contract leaves open, fixed here:
//   - A UTF-8 byte order mark (U+FEFF) before the JSON value is rejected: it
//     is not JSON (RFC 8259 section 8.1 forbids senders to add it). Inside
//     strings U+FEFF is allowed, like every code point the contract does not
//     list.
//   - DEL (U+007F) counts as a control character and is rejected.
//   - Escaped C0 controls are rejected too, including \n, \t, \r, \b and \f:
//     the contract allows no control characters in free text.
//   - Top-level scalars ("x", 1, true, null) are valid JSON and pass; the
//     decoder that maps the body to a request type rejects the wrong shape.
//   - TPP-Redirect-URI must not carry a fragment (as OAuth 2.0 redirect URIs,
//     RFC 6749 section 3.1.2), nor userinfo.
//   - PSU-Geo-Location accepts ',' (the interface description) and ';'
//     (Berlin Group's pattern) between latitude and longitude.
//
// JSON paths are written in JSONPath style from the root "$": member names
// that are identifiers use dot notation ($.instructedAmount.amount), other
// names bracket notation with single quotes ($['a b']), array elements
// their zero-based index ($.paymentIds[3]).
package hygiene
