// Package digest parses and checks the RFC 3230 Digest request header as
// Berlin Group uses it: "SHA-256=<base64>" and/or "SHA-512=<base64>" (RFC
// 5843) over the exact body bytes received.
//
// Policy, from the HTTP signature reference notes: algorithm names are
// case-insensitive; unknown algorithms are ignored, but at least one of
// SHA-256 and SHA-512 must be present (MD5, SHA and UNIXsum alone are not
// enough); a supported algorithm listed twice is an error; values are
// strict padded standard base64 of exactly the digest size; and every
// supported digest present must match. Comparison is constant time.
//
// The header must occur once. The signature package already rejects a
// repeated Digest line, because Digest is always a signed header when
// present. Error texts name the algorithm and say what was wrong, for a
// FORMAT_ERROR body.
package digest
