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
// Input bounds. Every header the interface description types has a length
// bound (headerRules, the one table; the README's "Input bounds" lists the
// same), so that what a client sends, and what the gateway and backend keep
// of it, stays small. A value over its bound is 400 FORMAT_ERROR naming the
// header and the bound. For headers that may repeat the bound applies to
// the values together.
//
//	Header                     Bound (bytes)  Also
//	Signature                  8192           the signature parser's bound
//	Digest                     4096           the digest parser's bound
//	Date                       64             IMF-fixdate
//	X-Request-ID               36             UUID
//	TPP-Signature-Certificate  16384          the contract's 16 KiB
//	PSU-ID                     36             UUID
//	PSU-Corporate-ID           36             UUID
//	PSU-Device-ID              36             UUID
//	PSU-IP-Address             45             IPv4 or IPv6
//	PSU-IP-Port                5              1-65535
//	PSU-HTTP-Method            6              GET POST PUT PATCH DELETE
//	PSU-Geo-Location           64             GEO:<lat>,<lon>
//	TPP-Redirect-URI           1024           absolute https URI
//	TPP-Redirect-Preferred     5              true or false
//	TPP-Session-ID             128            A-Z a-z 0-9 - . _ ~ + / = :
//	X-Obgw-Context             8192           replaced by the gateway
//	Content-Type               256
//	PSU-User-Agent             1024           may repeat
//	PSU-Accept                 512            may repeat
//	PSU-Accept-Charset         256            may repeat
//	PSU-Accept-Encoding        256            may repeat
//	PSU-Accept-Language        256            may repeat
//	Accept                     512            may repeat
//	Accept-Charset             256            may repeat
//	Accept-Encoding            256            may repeat
//	Accept-Language            256            may repeat
//	X-Accept-Fix               512            may repeat
//
// CheckPath holds the request's decoded path to valid UTF-8 without control
// characters (NUL included), so malformed resource ids stop here instead of
// in the limiter, the context token or the database.
//
// JSON paths are written in JSONPath style from the root "$": member names
// that are identifiers use dot notation ($.instructedAmount.amount), other
// names bracket notation with single quotes ($['a b']), array elements
// their zero-based index ($.paymentIds[3]).
package hygiene
