// Package opensslrsa signs RSASSA-PKCS1-v1_5 SHA-256 signatures with an
// RSA private key held in OpenSSL's libcrypto: the bank's seal on every
// answer. On this repository's reference machine OpenSSL 3 signs with a
// 2048-bit key in 0.28 ms, crypto/rsa in 0.79 ms; with the RSA seal that
// signature is the largest single cost of an answer.
//
// A PKCS #1 v1.5 signature is deterministic: for one key and one digest
// there is one correct signature, so OpenSSL's bytes and crypto/rsa's must
// be the same, and TestSignaturesAreCryptoRSAs holds them to it, on every
// key size the seal admits and on fuzzed digests (FuzzSignaturesAreCryptoRSAs).
//
// Why these few calls are written here rather than taken from a binding:
// the maintained Go bindings of libcrypto (github.com/golang-fips/openssl/v2,
// github.com/microsoft/go-crypto-openssl) are refused by the Go module proxy
// this repository builds from (403 "not available", checked 2026-11-28 and
// 2026-11-29); the one fork it serves, github.com/libp2p/go-openssl, was
// archived by its maintainers in January 2023. Go's own GOEXPERIMENT=
// boringcrypto (BoringSSL's FIPS module) signs in 0.52 ms here, short of
// OpenSSL, and Go calls its use outside Google unsupported. This package is
// the smallest binding obgw needs (a key from its DER, one signing call),
// and it is to be replaced by golang-fips/openssl once that is reachable.
//
// It needs cgo and OpenSSL's headers (Debian: libssl-dev) at build time,
// libcrypto.so.3 at run time. A build without cgo (CGO_ENABLED=0), or with
// the build tag obgw_purego, has none of it: New fails, and the seal signs
// with crypto/rsa.
package opensslrsa
