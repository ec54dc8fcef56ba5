package caddymodule

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddytls"

	"github.com/obgw/obgw/gateway/registry"
	"github.com/obgw/obgw/pemfile"
	"github.com/obgw/obgw/pkcs11key"
	"github.com/obgw/obgw/testpki/published"
)

// trustFinding is one trust setting of a deployment that holds the
// project's published test PKI (package published), or that cannot be
// read.
type trustFinding struct {
	// setting names the option and the shipped Caddyfile's variables.
	setting string
	// what says what of it is the test PKI's, or why it cannot be read.
	what string
	// replace says what a bank gives instead.
	replace string
}

func (f trustFinding) String() string {
	return f.setting + ": " + f.what + "; " + f.replace
}

// Trust settings, as the error names them: the option and the variable of
// the shipped Caddyfile.
const (
	settingQTSPCAs     = "qtsp_cas (OBGW_QTSP_CAS)"
	settingCRL         = "crl (OBGW_CRL)"
	settingRegistry    = "registry (OBGW_REGISTRY)"
	settingSeal        = "bank_seal_cert and bank_seal_key (OBGW_BANK_SEAL_CERT, OBGW_BANK_SEAL_KEY)"
	settingSigningKey  = "context_signing_key_file (OBGW_CONTEXT_SIGNING_KEY_FILE)"
	settingPublished   = "context_published_key_files (OBGW_CONTEXT_PUBLISHED_KEY_FILES)"
	settingTLS         = "the site's tls certificate and key (OBGW_TLS_CERT, OBGW_TLS_KEY)"
	replaceQTSPCAs     = "give the PEM bundle of the qualified CAs whose QSealCs and QWACs you accept"
	replaceCRL         = "give the CRLs of those CAs, or none (OBGW_CRL=) with ocsp on (OBGW_OCSP=on)"
	replaceRegistry    = "give your national register (a JSON file, or its URL)"
	replaceSeal        = "give your bank's QSealC and its private key"
	replaceContextKey  = "give a key of your own (openssl genpkey -algorithm ed25519)"
	replaceTLS         = "give your bank's TLS certificate for the name TPPs connect to, and its key"
	readFailureReplace = "give a readable file"
)

// testServerNames are the names every TLS server certificate of the test
// PKI is issued for (testpki's server.pem: DNS localhost, IP 127.0.0.1 and
// ::1). The tls app's certificates are found by name only (it keeps no
// list), and a bank's certificate for one of these names would be of no
// use to a TPP, so looking these up finds the test PKI's wherever its
// files were copied.
var testServerNames = []string{"localhost", "127.0.0.1", "::1"}

// publishedTrust returns the trust settings of a, and of the tls app, that
// hold the published test PKI or cannot be read: the trusted QTSP CAs,
// their CRLs, the register's TPPs (a file register; an http register is
// not asked at provisioning), the bank's seal, the context tokens' keys,
// and the TLS certificate. It reads the files itself, by content: where a
// file lies says nothing.
func (a *App) publishedTrust(ctx caddy.Context) []trustFinding {
	var found []trustFinding
	add := func(setting, what, replace string) {
		found = append(found, trustFinding{setting: setting, what: what, replace: replace})
	}
	readPEM := func(setting, path string) (certs []*x509.Certificate, keys []crypto.PublicKey, crls []*x509.RevocationList, ok bool) {
		raw, err := os.ReadFile(path)
		if err != nil {
			add(setting, fmt.Sprintf("%s cannot be read: %v", path, errors.Unwrap(err)), readFailureReplace)
			return nil, nil, nil, false
		}
		certs, keys, crls = pemContents(raw)
		return certs, keys, crls, true
	}
	keysOf := func(certs []*x509.Certificate, keys []crypto.PublicKey) (names []string) {
		for _, c := range certs {
			if published.Certificate(c) {
				names = append(names, fmt.Sprintf("%q", subjectName(c)))
			}
		}
		for _, k := range keys {
			if published.PublicKey(k) {
				names = append(names, "its private key")
			}
		}
		return names
	}

	if a.QTSPCAs != "" {
		if certs, keys, _, ok := readPEM(settingQTSPCAs, a.QTSPCAs); ok {
			if names := keysOf(certs, keys); len(names) > 0 {
				add(settingQTSPCAs, fmt.Sprintf("%s holds the test PKI's CA %s", a.QTSPCAs, strings.Join(names, ", ")), replaceQTSPCAs)
			}
		}
	}
	if a.CRL != "" {
		if _, _, crls, ok := readPEM(settingCRL, a.CRL); ok {
			for _, l := range crls {
				if published.CRL(l) {
					add(settingCRL, fmt.Sprintf("%s is the test PKI's CRL", a.CRL), replaceCRL)
					break
				}
			}
		}
	}
	if a.Registry != "" && !strings.HasPrefix(a.Registry, "https://") && !strings.HasPrefix(a.Registry, "http://") {
		if f, err := registry.LoadFile(a.Registry); err != nil {
			add(settingRegistry, fmt.Sprintf("%s cannot be read: %v", a.Registry, err), readFailureReplace)
		} else {
			var tpps []string
			for _, id := range f.OrganizationIdentifiers() {
				if published.OrganizationIdentifier(id) {
					tpps = append(tpps, id)
				}
			}
			if len(tpps) > 0 {
				slices.Sort(tpps)
				what := fmt.Sprintf("%s lists %d test TPPs (%s", a.Registry, len(tpps), strings.Join(tpps[:min(len(tpps), 2)], ", "))
				if len(tpps) > 2 {
					what += ", ..."
				}
				add(settingRegistry, what+")", replaceRegistry)
			}
		}
	}
	if a.BankSealCert != "" && a.BankSealKey != "" {
		// A key in a token is the certificate's: its public key says it.
		certs, _, _, okCert := readPEM(settingSeal, a.BankSealCert)
		var keys []crypto.PublicKey
		okKey := true
		if !pkcs11key.IsURI(a.BankSealKey) {
			_, keys, _, okKey = readPEM(settingSeal, a.BankSealKey)
		}
		if okCert && okKey {
			if names := keysOf(certs, keys); len(names) > 0 {
				add(settingSeal, fmt.Sprintf("%s and %s are the test bank's seal", a.BankSealCert, a.BankSealKey), replaceSeal)
			}
		}
	}
	if a.ContextSigningKeyFile != "" && !pkcs11key.IsURI(a.ContextSigningKeyFile) {
		if certs, keys, _, ok := readPEM(settingSigningKey, a.ContextSigningKeyFile); ok && len(keysOf(certs, keys)) > 0 {
			add(settingSigningKey, fmt.Sprintf("%s is the test PKI's key", a.ContextSigningKeyFile), replaceContextKey)
		}
	}
	for _, f := range a.ContextPublishedKeyFiles {
		if certs, keys, _, ok := readPEM(settingPublished, f); ok && len(keysOf(certs, keys)) > 0 {
			add(settingPublished, fmt.Sprintf("%s is the test PKI's key", f), replaceContextKey)
		}
	}
	found = append(found, publishedTLS(ctx)...)
	return found
}

// publishedTLS returns the tls app's server certificates that are the
// test PKI's, or why the tls app could not load them.
func publishedTLS(ctx caddy.Context) []trustFinding {
	app, err := ctx.AppIfConfigured("tls")
	if errors.Is(err, caddy.ErrNotConfigured) {
		return nil
	}
	if err != nil {
		return []trustFinding{{setting: settingTLS, what: err.Error(), replace: readFailureReplace}}
	}
	tlsApp := app.(*caddytls.TLS)
	for _, name := range testServerNames {
		if !tlsApp.HasCertificateForSubject(name) {
			continue
		}
		for _, c := range caddytls.AllMatchingCertificates(name) {
			leaf := c.Leaf
			if leaf == nil && len(c.Certificate.Certificate) > 0 {
				leaf, _ = x509.ParseCertificate(c.Certificate.Certificate[0])
			}
			signer, _ := c.PrivateKey.(crypto.Signer)
			if (leaf != nil && published.Certificate(leaf)) || (signer != nil && published.PublicKey(signer.Public())) {
				return []trustFinding{{setting: settingTLS, what: fmt.Sprintf("the certificate for %s is the test PKI's server certificate", name), replace: replaceTLS}}
			}
		}
	}
	return nil
}

// pemContents returns the certificates, the public halves of the private
// keys, and the CRLs of a PEM file; blocks it cannot parse are left to the
// setting's own loader to refuse.
func pemContents(raw []byte) (certs []*x509.Certificate, keys []crypto.PublicKey, crls []*x509.RevocationList) {
	for rest := raw; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return certs, keys, crls
		}
		switch {
		case b.Type == "CERTIFICATE":
			if c, err := x509.ParseCertificate(b.Bytes); err == nil {
				certs = append(certs, c)
			}
		case b.Type == "X509 CRL":
			if l, err := x509.ParseRevocationList(b.Bytes); err == nil {
				crls = append(crls, l)
			}
		case b.Type == "PUBLIC KEY":
			if k, err := x509.ParsePKIXPublicKey(b.Bytes); err == nil {
				keys = append(keys, k)
			}
		case strings.HasSuffix(b.Type, "PRIVATE KEY"):
			if k, err := pemfile.PrivateKey(pem.EncodeToMemory(b)); err == nil {
				keys = append(keys, k.Public())
			}
		}
	}
}

// refusePublishedTrust is the production rule: one error naming every
// trust setting that holds the published test PKI, or cannot be read, and
// what to give instead; nil when none does. A sandbox may trust the test
// PKI: it says so once per process in its log.
func (a *App) refusePublishedTrust(ctx caddy.Context) error {
	found := a.publishedTrust(ctx)
	if a.Sandbox() {
		var test []string
		for _, f := range found {
			if f.replace != readFailureReplace {
				test = append(test, f.setting)
			}
		}
		if len(test) > 0 {
			sandboxTestPKILogged.Do(func() {
				a.slog.Warn("this sandbox trusts the project's published test PKI, whose private keys anyone can read: fine for trying obgw out; production refuses it",
					"settings", strings.Join(test, "; "))
			})
		}
		return nil
	}
	if len(found) == 0 {
		return nil
	}
	return refusal("these trust settings (anyone can read the private keys of this repository's test PKI, testdata/pki and what obgw testpki makes, and a file that cannot be read trusts nothing)", found)
}

// refusal is production's one error for what (the kind of settings and
// why) naming every finding, each on a line of its own, and the sandbox
// to try obgw out in.
func refusal(what string, found []trustFinding) error {
	lines := make([]string, len(found))
	for i, f := range found {
		lines[i] = "  - " + f.String()
	}
	return fmt.Errorf("obgw: production refuses %s; replace:\n%s\n"+
		"or, to try obgw out with the test PKI, run a sandbox (OBGW_ENV=sandbox, as make run does)", what, strings.Join(lines, "\n"))
}

// sandboxTestPKILogged makes the sandbox's word on the test PKI once per
// process, not at every reload.
var sandboxTestPKILogged sync.Once
