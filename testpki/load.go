package testpki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Load reads a PKI written by WriteDir. Authorities have no keys and
// Impostor is nil. It checks that every TPP file matches its fixed
// definition (organisation identifier, name) and that registry.json agrees,
// so stale committed test data is noticed.
func Load(dir string) (*PKI, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("testpki: %w", err)
		}
		return b, nil
	}
	readCerts := func(name string) ([]*x509.Certificate, error) {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		return parseCertificates(name, b)
	}
	// readPair reads a certificate and its PKCS #8 key, and checks they
	// belong together.
	readPair := func(certName, keyName string) (*x509.Certificate, crypto.Signer, error) {
		certs, err := readCerts(certName)
		if err != nil {
			return nil, nil, err
		}
		if len(certs) != 1 {
			return nil, nil, fmt.Errorf("testpki: %s holds %d certificates, want 1", certName, len(certs))
		}
		b, err := read(keyName)
		if err != nil {
			return nil, nil, err
		}
		key, err := parseKey(keyName, b)
		if err != nil {
			return nil, nil, err
		}
		if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(certs[0].PublicKey) {
			return nil, nil, fmt.Errorf("testpki: %s does not match %s", keyName, certName)
		}
		return certs[0], key, nil
	}
	readKeyPair := func(certName, keyName string) (*KeyPair, error) {
		cert, key, err := readPair(certName, keyName)
		if err != nil {
			return nil, err
		}
		rk, ok := key.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("testpki: " + keyName + ": not an RSA key")
		}
		return &KeyPair{Certificate: cert, Key: rk}, nil
	}

	p := &PKI{}
	cas, err := readCerts(FileQTSPCAs)
	if err != nil {
		return nil, err
	}
	if len(cas) != 2 {
		return nil, fmt.Errorf("testpki: %s holds %d certificates, want root and issuing CA", FileQTSPCAs, len(cas))
	}
	for _, c := range cas {
		if bytes.Equal(c.RawSubject, c.RawIssuer) {
			p.Root = &Authority{Certificate: c}
		} else {
			p.Issuing = &Authority{Certificate: c}
		}
	}
	if p.Root == nil || p.Issuing == nil {
		return nil, fmt.Errorf("testpki: %s must hold one self-signed root and one issuing CA", FileQTSPCAs)
	}
	if err := p.Issuing.Certificate.CheckSignatureFrom(p.Root.Certificate); err != nil {
		return nil, fmt.Errorf("testpki: issuing CA in %s is not signed by the root: %w", FileQTSPCAs, err)
	}
	p.Issuing.chain = []*x509.Certificate{p.Issuing.Certificate}

	tlsCA, err := readCerts(FileTLSCA)
	if err != nil {
		return nil, err
	}
	if len(tlsCA) != 1 {
		return nil, fmt.Errorf("testpki: %s holds %d certificates, want 1", FileTLSCA, len(tlsCA))
	}
	p.TLSCA = &Authority{Certificate: tlsCA[0]}
	if p.Server, err = readKeyPair(FileServer, FileServerKey); err != nil {
		return nil, err
	}
	gatewayCA, err := readCerts(FileGatewayCA)
	if err != nil {
		return nil, err
	}
	if len(gatewayCA) != 1 {
		return nil, fmt.Errorf("testpki: %s holds %d certificates, want 1", FileGatewayCA, len(gatewayCA))
	}
	p.GatewayCA = &Authority{Certificate: gatewayCA[0]}
	if p.Gateway, err = readKeyPair(FileGateway, FileGatewayKey); err != nil {
		return nil, err
	}
	if err := p.Gateway.Certificate.CheckSignatureFrom(p.GatewayCA.Certificate); err != nil {
		return nil, fmt.Errorf("testpki: %s is not signed by %s: %w", FileGateway, FileGatewayCA, err)
	}

	if p.BankSeal, err = readKeyPair(FileBankSeal, FileBankSealKey); err != nil {
		return nil, err
	}
	if err := p.BankSeal.Certificate.CheckSignatureFrom(p.Issuing.Certificate); err != nil {
		return nil, fmt.Errorf("testpki: %s is not signed by the issuing CA of %s: %w", FileBankSeal, FileQTSPCAs, err)
	}
	p.BankSeal.Chain = p.Issuing.chain
	sealEC, sealECKey, err := readPair(FileBankSealEC, FileBankSealECKey)
	if err != nil {
		return nil, err
	}
	ek, ok := sealECKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("testpki: " + FileBankSealECKey + ": not an ECDSA key")
	}
	p.BankSealEC = &ECKeyPair{Certificate: sealEC, Key: ek}
	if err := p.BankSealEC.Certificate.CheckSignatureFrom(p.Issuing.Certificate); err != nil {
		return nil, fmt.Errorf("testpki: %s is not signed by the issuing CA of %s: %w", FileBankSealEC, FileQTSPCAs, err)
	}

	crlPEM, err := read(FileQTSPCRL)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(crlPEM)
	if block == nil || block.Type != pemCRL {
		return nil, fmt.Errorf("testpki: %s has no %s block", FileQTSPCRL, pemCRL)
	}
	if p.CRL, err = x509.ParseRevocationList(block.Bytes); err != nil {
		return nil, fmt.Errorf("testpki: %s: %w", FileQTSPCRL, err)
	}

	regJSON, err := read(FileRegistry)
	if err != nil {
		return nil, err
	}
	var reg Registry
	if err := json.Unmarshal(regJSON, &reg); err != nil {
		return nil, fmt.Errorf("testpki: %s: %w", FileRegistry, err)
	}

	for _, s := range tppSpecs {
		t := newTPP(s)
		if t.Seal, err = readKeyPair(SealFile(s.id), SealKeyFile(s.id)); err != nil {
			return nil, err
		}
		if t.Web, err = readKeyPair(WebFile(s.id), WebKeyFile(s.id)); err != nil {
			return nil, err
		}
		for _, kp := range []*KeyPair{t.Seal, t.Web} {
			if err := checkTPPCertificate(t, kp.Certificate); err != nil {
				return nil, err
			}
			if kp.Certificate.CheckSignatureFrom(p.Issuing.Certificate) == nil {
				kp.Chain = p.Issuing.chain
			}
		}
		if err := checkRegistered(t, reg); err != nil {
			return nil, err
		}
		p.TPPs = append(p.TPPs, t)
	}
	if len(reg.TPPs) != len(p.Registry().TPPs) {
		return nil, fmt.Errorf("testpki: %s has %d entries, want %d", FileRegistry, len(reg.TPPs), len(p.Registry().TPPs))
	}
	return p, nil
}

// checkTPPCertificate checks that a loaded certificate belongs to t.
func checkTPPCertificate(t *TPP, c *x509.Certificate) error {
	var orgID any
	for _, atv := range c.Subject.Names {
		if atv.Type.Equal(OIDOrganizationID) {
			orgID = atv.Value
		}
	}
	if orgID != t.OrganizationIdentifier || len(c.Subject.Organization) != 1 || c.Subject.Organization[0] != t.Name {
		return fmt.Errorf("testpki: certificate of %s names %v / %v, want %s / %s; regenerate the test PKI", t.ID, orgID, c.Subject.Organization, t.OrganizationIdentifier, t.Name)
	}
	return nil
}

// checkRegistered checks that registry.json says of t what its definition
// says.
func checkRegistered(t *TPP, reg Registry) error {
	for _, e := range reg.TPPs {
		if e.OrganizationIdentifier != t.OrganizationIdentifier {
			continue
		}
		if e.Status != t.RegistryStatus || e.Name != t.Name || !slices.Equal(e.Roles, t.RegistryRoles) {
			return fmt.Errorf("testpki: %s entry of %s differs from its definition; regenerate the test PKI", FileRegistry, t.ID)
		}
		return nil
	}
	if t.RegistryStatus != "" {
		return fmt.Errorf("testpki: %s lacks %s", FileRegistry, t.OrganizationIdentifier)
	}
	return nil
}

func parseCertificates(name string, b []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			break
		}
		if block.Type != pemCertificate {
			return nil, fmt.Errorf("testpki: %s: unexpected PEM block %q", name, block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("testpki: %s: %w", name, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("testpki: %s: no certificate", name)
	}
	return certs, nil
}

// parseKey reads the PKCS #8 key of file name.
func parseKey(name string, b []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != pemPrivateKey {
		return nil, fmt.Errorf("testpki: %s: no %s PEM block", name, pemPrivateKey)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("testpki: %s: %w", name, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("testpki: %s: a %T key cannot sign", name, k)
	}
	return signer, nil
}
