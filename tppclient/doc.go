// Package tppclient is the TPP side of request signing: it signs requests
// the way a TPP client of this Berlin Group dialect does (draft-cavage HTTP
// signature with rsa-sha256, Digest, TPP-Signature-Certificate) and sends
// them. Integration tests, benchmarks and a future TPP-facing client use it.
//
// It is written from the interface description's Authentication section and
// the reference vectors alone, and deliberately imports nothing of the
// gateway: a bug shared by signer and verifier must not cancel itself out.
package tppclient
