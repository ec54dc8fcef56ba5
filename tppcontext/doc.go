// Package tppcontext carries what the gateway verified about a request to
// the backend: a compact JWS (go-jose) in the X-Obgw-Context header, valid
// for 60 seconds, whose claims docs/context-token.md documents (the
// contract, versioned). It is signed with HS256 (a secret obgw shares with
// its own backend) or with an asymmetric key (Ed25519, or ECDSA P-256)
// named by kid, whose public half a bank's own backend reads from a JWKS
// (KeySet) and so can verify but not forge. The backend accepts no request
// without a valid token, whether it runs in-process or behind
// reverse_proxy.
package tppcontext
