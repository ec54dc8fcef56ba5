// Package signature verifies Berlin Group request signatures: the
// draft-cavage-http-signatures dialect in which a TPP signs selected
// request headers with the RSA key of its eIDAS QSealC and sends
//
//	Signature: keyId="SN=<serial hex>,CA=<issuer DN>",algorithm="rsa-sha256",headers="date digest x-request-id ...",signature="<base64>"
//
// together with the certificate in TPP-Signature-Certificate.
//
// A request is checked in this order, cheapest first: Parse the header
// value (RFC 2047 encoded values are decoded first), CheckCoverage of the
// signed header list against the request, ParseKeyID and KeyID.Matches
// against the presented certificate, AppendSigningString from the
// headers as transmitted, and finally Verify. Everything before Verify
// costs a few microseconds and a handful of allocations, so a warm-cache
// verification is dominated by the single RSA operation.
//
// The package knows nothing of HTTP servers or Caddy; it takes header
// values and an http.Header and returns errors whose text says what was
// wrong and how to fix it, suitable for a SIGNATURE_INVALID error body.
// Error texts never contain signature bytes or certificates.
//
// diagnose.go explains a failure for a sandbox's diagnostics: the keyId a
// certificate wants (KeyIDFor) and why another does not name it
// (KeyID.Mismatch), every header the list lacks (UncoveredHeaders), what a
// signature that does not verify was made over (Key.Recover) and which
// usual mistake made the client's signing string differ
// (ExplainDifference).
package signature
