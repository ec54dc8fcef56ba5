// Package tppclient is the TPP side of request signing: it signs requests
// the way a TPP client of this Berlin Group dialect does (draft-cavage HTTP
// signature with rsa-sha256, Digest, TPP-Signature-Certificate) and sends
// them. Integration tests, benchmarks and a future TPP-facing client use it.
//
// It is written from the interface description's Authentication section and
// the reference vectors alone, and deliberately imports nothing of this
// module (TestImportsNothingOfTheBank): a bug shared by signer and verifier
// must not cancel itself out. Its response verifier has its own small
// parsers of Signature, keyId and Digest; differential tests (the only
// code here that imports the gateway) hold them to the gateway's answers,
// and the bank seal's keyId to DefaultKeyID's bytes.
package tppclient
