// Package pkcs11key signs with private keys held in a PKCS #11 token (a
// hardware security module, or SoftHSM2 in tests), named by an RFC 7512
// URI:
//
//	pkcs11:token=obgw;object=bank-seal?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=file:/etc/obgw/hsm-pin
//
// The token is chosen by token (label), serial or slot-id; the key by
// object (label) and/or id. The PIN comes from pin-source, a file read
// when the key is opened; pin-value is refused, because a URI is part of
// the configuration, which the admin API serves and logs may show.
//
// The URI is parsed by github.com/stefanberger/go-pkcs11uri and the token
// reached through github.com/ThalesGroup/crypto11 (over
// github.com/miekg/pkcs11): crypto11 hands out a key as a crypto.Signer
// for RSA (PKCS #1 v1.5) and ECDSA (ASN.1 DER signatures), pools the
// sessions and keeps the login, which is what a signer of every answer
// needs; miekg/pkcs11 alone would leave all of that to obgw. Both need
// cgo: a build without cgo refuses PKCS #11 URIs and keeps file keys.
//
// A Signer outlives its token's absence: a signature that fails reopens
// the token (at most once a second) and signs again, so a token that went
// away and came back serves without a restart, and one that is gone fails
// every signature meanwhile (the caller answers 503, never unsigned).
package pkcs11key
