// Package integration runs the obgw binary as a real Caddy server over real
// TLS and sends it requests signed by tppclient with the committed test PKI.
// It has tests only.
package integration
