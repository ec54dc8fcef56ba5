package testpki

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// File names written by WriteDir and read by Load.
const (
	FileQTSPCAs     = "qtsp-cas.pem"      // Root and Issuing certificates
	FileQTSPCRL     = "qtsp-crl.pem"      // Issuing's CRL
	FileTLSCA       = "tls-ca.pem"        // Test Bank TLS CA
	FileServer      = "server.pem"        // localhost server certificate
	FileServerKey   = "server-key.pem"    // its PKCS #8 key
	FileGatewayCA   = "gateway-ca.pem"    // Test Bank Gateway CA
	FileGateway     = "gateway.pem"       // gateway client certificate for a split backend
	FileGatewayKey  = "gateway-key.pem"   // its PKCS #8 key
	FileRegistry    = "registry.json"     // the TPP registry
	FileBankSeal    = "bank-seal.pem"     // the bank's QSealC
	FileBankSealKey = "bank-seal-key.pem" // its PKCS #8 key
	// FileBankSealEC and FileBankSealECKey are the bank's QSealC with a
	// P-256 key (ecdsa-sha256) and its PKCS #8 key.
	FileBankSealEC    = "bank-seal-ec.pem"
	FileBankSealECKey = "bank-seal-ec-key.pem"
	sealSuffix        = "-qseal.pem"
	sealKeySuffix     = "-qseal-key.pem"
	webSuffix         = "-qwac.pem"
	webKeySuffix      = "-qwac-key.pem"
	pemCertificate    = "CERTIFICATE"
	pemPrivateKey     = "PRIVATE KEY"
	pemCRL            = "X509 CRL"
)

// SealFile returns the file name of a TPP's QSealC, e.g. "tpp-qseal.pem".
func SealFile(id string) string { return id + sealSuffix }

// SealKeyFile returns the file name of a TPP's QSealC key.
func SealKeyFile(id string) string { return id + sealKeySuffix }

// WebFile returns the file name of a TPP's QWAC, e.g. "tpp-qwac.pem".
func WebFile(id string) string { return id + webSuffix }

// WebKeyFile returns the file name of a TPP's QWAC key.
func WebKeyFile(id string) string { return id + webKeySuffix }

// Registry is the shape of registry.json.
type Registry struct {
	TPPs []RegistryEntry `json:"tpps"`
}

// RegistryEntry is one TPP in registry.json.
type RegistryEntry struct {
	OrganizationIdentifier string   `json:"organizationIdentifier"`
	Name                   string   `json:"name"`
	Roles                  []string `json:"roles"`
	Status                 string   `json:"status"`
}

// Registry returns the registry of p's TPPs: every TPP with a
// RegistryStatus, in order.
func (p *PKI) Registry() Registry {
	r := Registry{TPPs: []RegistryEntry{}}
	for _, t := range p.TPPs {
		if t.RegistryStatus == "" {
			continue
		}
		r.TPPs = append(r.TPPs, RegistryEntry{OrganizationIdentifier: t.OrganizationIdentifier, Name: t.Name, Roles: t.RegistryRoles, Status: t.RegistryStatus})
	}
	return r
}

// WriteDir writes p to dir (created if missing) as PEM files and
// registry.json: qtsp-cas.pem, qtsp-crl.pem, tls-ca.pem, server.pem,
// server-key.pem, gateway-ca.pem, gateway.pem, gateway-key.pem,
// bank-seal.pem, bank-seal-key.pem, and <id>-qseal.pem, <id>-qseal-key.pem, <id>-qwac.pem,
// <id>-qwac-key.pem per TPP. Keys are unencrypted PKCS #8. CA keys are not
// written.
func (p *PKI) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("testpki: %w", err)
	}
	files := map[string][]byte{
		FileQTSPCAs:    certPEM(p.Root.Certificate, p.Issuing.Certificate),
		FileQTSPCRL:    pem.EncodeToMemory(&pem.Block{Type: pemCRL, Bytes: p.CRL.Raw}),
		FileTLSCA:      certPEM(p.TLSCA.Certificate),
		FileServer:     certPEM(p.Server.Certificate),
		FileGatewayCA:  certPEM(p.GatewayCA.Certificate),
		FileGateway:    certPEM(p.Gateway.Certificate),
		FileBankSeal:   certPEM(p.BankSeal.Certificate),
		FileBankSealEC: certPEM(p.BankSealEC.Certificate),
	}
	keys := map[string]*rsa.PrivateKey{FileServerKey: p.Server.Key, FileGatewayKey: p.Gateway.Key, FileBankSealKey: p.BankSeal.Key}
	for _, t := range p.TPPs {
		files[SealFile(t.ID)] = certPEM(t.Seal.Certificate)
		files[WebFile(t.ID)] = certPEM(t.Web.Certificate)
		keys[SealKeyFile(t.ID)] = t.Seal.Key
		keys[WebKeyFile(t.ID)] = t.Web.Key
	}
	reg, err := json.MarshalIndent(p.Registry(), "", "  ")
	if err != nil {
		return fmt.Errorf("testpki: registry: %w", err)
	}
	files[FileRegistry] = append(reg, '\n')
	for name, key := range keys {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return fmt.Errorf("testpki: %s: %w", name, err)
		}
		files[name] = pem.EncodeToMemory(&pem.Block{Type: pemPrivateKey, Bytes: der})
	}
	ecDER, err := x509.MarshalPKCS8PrivateKey(p.BankSealEC.Key)
	if err != nil {
		return fmt.Errorf("testpki: %s: %w", FileBankSealECKey, err)
	}
	files[FileBankSealECKey] = pem.EncodeToMemory(&pem.Block{Type: pemPrivateKey, Bytes: ecDER})
	for name, data := range files {
		mode := os.FileMode(0o644)
		if _, isKey := keys[name]; isKey || name == FileBankSealECKey {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, mode); err != nil {
			return fmt.Errorf("testpki: %w", err)
		}
	}
	return nil
}

func certPEM(certs ...*x509.Certificate) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&b, &pem.Block{Type: pemCertificate, Bytes: c.Raw})
	}
	return b.Bytes()
}
