package main

import (
	"crypto/x509"
	"os"
	"path/filepath"
)

// gatewayRoots returns the roots that the commands talking to a gateway as
// a client (tpp-request, sca) verify its TLS certificate with: the
// system's roots, for a gateway with a public certificate, and the test
// PKI's TLS CA (tls-ca.pem in pkiDir), which signs the certificate of the
// gateway that 'make run' starts. Without tls-ca.pem the system's roots
// remain.
func gatewayRoots(pkiDir string) *x509.CertPool {
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if ca, err := os.ReadFile(filepath.Join(pkiDir, "tls-ca.pem")); err == nil {
		roots.AppendCertsFromPEM(ca)
	}
	return roots
}
