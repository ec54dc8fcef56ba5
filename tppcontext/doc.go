// Package tppcontext carries what the gateway verified about a request to
// the backend: a compact JWS (go-jose) in the X-Obgw-Context header, signed
// with HS256 or EdDSA, valid for 60 seconds. The backend accepts no request
// without a valid token, whether it runs in-process or behind reverse_proxy.
package tppcontext
