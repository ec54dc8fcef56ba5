// Package published recognises the project's published test PKI: the
// keys, certificates, CRL and register of testdata/pki, whose private keys
// anyone can read, and whatever `obgw testpki` generates. A production
// deployment must trust none of it (caddymodule refuses to start), so the
// test is by content, never by path: a copy of testdata/pki/server-key.pem
// under /etc/obgw is recognised as well.
//
// Two marks are looked for:
//   - every certificate the test PKI generator makes names a certificate
//     policy of its own ([Mark]);
//   - the public keys, CRLs and TPP organisation identifiers committed in
//     testdata/pki are listed in known.go, which TestKnownIsTestdata keeps
//     equal to that directory (go test -run TestKnownIsTestdata -update
//     rewrites it after `make testpki`).
package published
