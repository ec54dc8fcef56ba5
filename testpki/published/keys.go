package published

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
)

// PublicKey reports whether pub is the public key of one of testdata/pki's
// key pairs. A private key is recognised by its public half.
func PublicKey(pub crypto.PublicKey) bool {
	der, err := x509.MarshalPKIXPublicKey(pub)
	return err == nil && knownKeys[fingerprint(der)]
}

// OrganizationIdentifier reports whether id is one of the test TPPs'
// (testdata/pki/registry.json).
func OrganizationIdentifier(id string) bool {
	return knownTPPs[id]
}

// CASubject reports whether subject (a certificate's RawSubject, or an
// entry of a certificate pool's subjects) names one of the test PKI's CAs,
// as every PKI that testpki generates (Generate) names them. It serves
// where only a name is left to look at: a certificate pool cannot list its
// certificates.
func CASubject(subject []byte) bool {
	return knownCASubjects[fingerprint(subject)]
}

// fingerprint is the hex SHA-256 of der, the form of known.go's lists.
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// TestIdPClientSecret is `obgw test-idp`'s client secret for obgw, which
// `make run-idp` gives obgw: published, so never a production secret.
const TestIdPClientSecret = "obgw-test-secret"

// knownSecrets are the secrets this repository publishes.
var knownSecrets = map[string]bool{TestIdPClientSecret: true}

// Secret reports whether s is a secret this repository publishes.
func Secret(s string) bool { return knownSecrets[s] }
