package testpki

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Registry statuses, as in registry.json.
const (
	StatusAuthorised = "authorised"
	StatusWithdrawn  = "withdrawn"
)

// Validity periods: long, so that committed test data outlives its users.
const (
	caYears   = 30
	certYears = 25
)

// PKI is a generated (or loaded) test PKI.
type PKI struct {
	// Root is "Test QTSP Root CA"; Issuing is "Test QTSP Issuing CA",
	// which issues the TPP certificates and the CRL.
	Root, Issuing *Authority
	// Impostor is a self-signed CA with the same subject as Issuing but
	// its own key; it issues the "untrusted" TPP's certificates, so only
	// signature checks tell them apart. It is not written out; nil after
	// Load.
	Impostor *Authority
	// TLSCA is "Test Bank TLS CA", which issued Server.
	TLSCA *Authority
	// Server is the localhost TLS server certificate (DNS localhost, IP
	// 127.0.0.1 and ::1).
	Server *KeyPair
	// GatewayCA is "Test Bank Gateway CA", which issued Gateway: the CA a
	// split backend trusts for the gateways' client certificates.
	GatewayCA *Authority
	// Gateway is the client certificate a gateway presents to a split
	// backend (CN obgw-gateway, extended key usage clientAuth only).
	Gateway *KeyPair
	// BankSeal is the bank's QSealC ("Test Bank AS", role PSP_AS, issued
	// by Issuing): the gateway signs its responses with it and TPPs verify
	// them against it.
	BankSeal *KeyPair
	// BankSealEC is the same bank's QSealC with an ECDSA P-256 key: a
	// seal signing ecdsa-sha256, about thirty times cheaper than RSA.
	BankSealEC *ECKeyPair
	// CRL is Issuing's CRL, listing the "revoked" TPP's certificates.
	CRL *x509.RevocationList
	// TPPs are the test TPPs in a fixed order.
	TPPs []*TPP
}

// TPP is one test TPP with its QSealC and QWAC.
type TPP struct {
	// ID is the short name used by PKI.TPP and in file names, e.g. "tpp".
	ID string
	// Name is the organisation name (subject O), e.g. "Test TPP AS".
	Name string
	// OrganizationIdentifier is e.g. "PSDNO-FSA-987654321".
	OrganizationIdentifier string
	// Roles are the PSD2 roles in the certificates; nil for "nopsd2".
	Roles []string
	// RegistryStatus is StatusAuthorised, StatusWithdrawn, or "" for a TPP
	// missing from registry.json.
	RegistryStatus string
	// RegistryRoles are the roles registry.json grants.
	RegistryRoles []string
	// Seal is the QSealC, Web the QWAC.
	Seal, Web *KeyPair
}

// tppSpec is the fixed definition of one test TPP.
type tppSpec struct {
	id, name, number string
	roles            []string // nil: no PSD2 statement
	registryRoles    []string
	status           string
	bits             int
	expired          bool
	revoked          bool
	untrusted        bool
}

var (
	rolesAIPI = []string{"PSP_AI", "PSP_PI"}
	rolesAI   = []string{"PSP_AI"}
)

// tppSpecs are the test TPPs. Identifiers must stay stable: docs and tests
// name them.
var tppSpecs = []tppSpec{
	{id: "tpp", name: "Test TPP AS", number: "987654321", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised},
	{id: "aisp", name: "Test AISP AS", number: "987654322", roles: rolesAI, registryRoles: rolesAI, status: StatusAuthorised},
	{id: "regrestricted", name: "Test Restricted TPP AS", number: "987654323", roles: rolesAIPI, registryRoles: rolesAI, status: StatusAuthorised},
	{id: "withdrawn", name: "Test Withdrawn TPP AS", number: "987654324", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusWithdrawn},
	{id: "unregistered", name: "Test Unregistered TPP AS", number: "987654325", roles: rolesAIPI},
	{id: "expired", name: "Test Expired TPP AS", number: "987654326", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised, expired: true},
	{id: "revoked", name: "Test Revoked TPP AS", number: "987654327", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised, revoked: true},
	{id: "nopsd2", name: "Test No PSD2 TPP AS", number: "987654328", registryRoles: rolesAIPI, status: StatusAuthorised},
	{id: "untrusted", name: "Test Untrusted TPP AS", number: "987654329", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised, untrusted: true},
	{id: "rsa3072", name: "Test RSA3072 TPP AS", number: "987654330", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised, bits: 3072},
	{id: "rsa4096", name: "Test RSA4096 TPP AS", number: "987654331", roles: rolesAIPI, registryRoles: rolesAIPI, status: StatusAuthorised, bits: 4096},
}

// TPP returns the TPP with the given ID ("tpp", "aisp", "regrestricted",
// "withdrawn", "unregistered", "expired", "revoked", "nopsd2", "untrusted",
// "rsa3072", "rsa4096"), or nil.
func (p *PKI) TPP(id string) *TPP {
	for _, t := range p.TPPs {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// QTSPPool returns a pool holding Root, for a Verifier's Roots.
func (p *PKI) QTSPPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.Root.Certificate)
	return pool
}

// IntermediatePool returns a pool holding Issuing, for a Verifier's
// Intermediates.
func (p *PKI) IntermediatePool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.Issuing.Certificate)
	return pool
}

// Generate creates a fresh test PKI valid around now: CAs from two years
// before now for 30 years, certificates from an hour before now for 25
// years, except the "expired" TPP's, which ended a day before now. Keys are
// RSA-2048 except the "rsa3072" and "rsa4096" TPPs'. Every certificate
// carries the test PKI's mark (package published): a production
// deployment refuses to trust any of it.
func Generate(now time.Time) (*PKI, error) {
	return generate(now, tppSpecs, false)
}

// GenerateUnpublished is Generate without the test PKI's mark, for tests
// of production deployments, which refuse the published test PKI: its
// keys are fresh and never written to the repository, and its TPPs have
// organisation identifiers of their own (PSDNO-FSA-1234543xx), so that
// its register is not the test register either. `obgw testpki` never
// writes one, and Load reads only Generate's.
func GenerateUnpublished(now time.Time) (*PKI, error) {
	specs := slices.Clone(tppSpecs)
	for i := range specs {
		specs[i].number = "1234543" + specs[i].number[len(specs[i].number)-2:]
	}
	return generate(now, specs, true)
}

func generate(now time.Time, specs []tppSpec, unmarked bool) (*PKI, error) {
	now = now.UTC().Truncate(time.Second)
	caFrom, caUntil := now.AddDate(-2, 0, 0), now.AddDate(caYears, 0, 0)
	from, until := now.Add(-time.Hour), now.AddDate(certYears, 0, 0)

	// An unpublished PKI stands for a bank's own: its CAs are named
	// otherwise than the test PKI's, which production refuses by name
	// where a name is all there is to see (published.CASubject).
	caName := func(cn, org string) pkix.Name {
		if unmarked {
			cn, org = strings.Replace(cn, "Test ", "Example ", 1), strings.Replace(org, "Test ", "Example ", 1)
		}
		return pkix.Name{CommonName: cn, Organization: []string{org}, Country: []string{"NO"}}
	}
	qtsp := func(cn string) pkix.Name { return caName(cn, "Test QTSP AS") }
	p := &PKI{}
	var err error
	if p.Root, err = newRootAuthority(qtsp("Test QTSP Root CA"), caFrom, caUntil, 2048, unmarked); err != nil {
		return nil, err
	}
	if p.Issuing, err = p.Root.NewSubordinate(qtsp("Test QTSP Issuing CA"), caFrom, caUntil, 2048); err != nil {
		return nil, err
	}
	if p.Impostor, err = newRootAuthority(qtsp("Test QTSP Issuing CA"), caFrom, caUntil, 2048, unmarked); err != nil {
		return nil, err
	}
	bank := caName("Test Bank TLS CA", "Test Bank AS")
	if p.TLSCA, err = newRootAuthority(bank, caFrom, caUntil, 2048, unmarked); err != nil {
		return nil, err
	}
	if p.Server, err = issueServer(p.TLSCA, from, until); err != nil {
		return nil, err
	}
	gw := caName("Test Bank Gateway CA", "Test Bank AS")
	if p.GatewayCA, err = newRootAuthority(gw, caFrom, caUntil, 2048, unmarked); err != nil {
		return nil, err
	}
	if p.Gateway, err = issueGateway(p.GatewayCA, from, until); err != nil {
		return nil, err
	}

	if p.BankSeal, err = issueBankSeal(p.Issuing, from, until); err != nil {
		return nil, err
	}
	if p.BankSealEC, err = issueBankSealEC(p.Issuing, from, until); err != nil {
		return nil, err
	}

	// The TPPs' keys are most of the work (RSA-4096 ones take seconds):
	// generate them on every CPU, keeping the order of specs.
	tpps := make([]*TPP, len(specs))
	errs := make([]error, len(specs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(specs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				tpps[i], errs[i] = generateTPP(p, specs[i], now, from, until)
			}
		}()
	}
	for i := range specs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var revoked []*big.Int
	for i, s := range specs {
		if s.revoked {
			revoked = append(revoked, tpps[i].Seal.Certificate.SerialNumber, tpps[i].Web.Certificate.SerialNumber)
		}
	}
	p.TPPs = tpps
	if p.CRL, err = p.Issuing.RevocationList(1, revoked, from, until); err != nil {
		return nil, err
	}
	return p, nil
}

// newTPP returns the TPP of s without certificates.
func newTPP(s tppSpec) *TPP {
	return &TPP{
		ID:                     s.id,
		Name:                   s.name,
		OrganizationIdentifier: "PSD" + NCAID + "-" + s.number,
		Roles:                  s.roles,
		RegistryStatus:         s.status,
		RegistryRoles:          s.registryRoles,
	}
}

func generateTPP(p *PKI, s tppSpec, now, from, until time.Time) (*TPP, error) {
	t := newTPP(s)
	if s.expired {
		from, until = now.AddDate(-1, 0, 0), now.AddDate(0, 0, -1)
	}
	issuer := p.Issuing
	if s.untrusted {
		issuer = p.Impostor
	}
	bits := s.bits
	if bits == 0 {
		bits = 2048
	}
	for _, kind := range []CertificateKind{Seal, Web} {
		tmpl, err := s.profile(kind, from, until).Template()
		if err != nil {
			return nil, err
		}
		kp, err := issuer.IssueKeyPair(tmpl, bits)
		if err != nil {
			return nil, fmt.Errorf("testpki: TPP %s: %w", s.id, err)
		}
		if kind == Seal {
			t.Seal = kp
		} else {
			t.Web = kp
		}
	}
	return t, nil
}

// profile returns the certificate profile of s's certificates of kind.
func (s tppSpec) profile(kind CertificateKind, from, until time.Time) CertificateProfile {
	return CertificateProfile{
		Kind:                   kind,
		Name:                   s.name,
		OrganizationIdentifier: "PSD" + NCAID + "-" + s.number,
		Roles:                  s.roles,
		NoPSD2:                 s.roles == nil,
		DNSName:                s.id + ".tpp.example",
		NotBefore:              from,
		NotAfter:               until,
	}
}

// BankOrganizationIdentifier is the test bank's organisation identifier,
// in its QSealC.
const BankOrganizationIdentifier = "PSD" + NCAID + "-912345678"

// bankSealProfile is the bank's QSealC: the eseal profile of a TPP's,
// with the ASPSP role.
func bankSealProfile(from, until time.Time) (*x509.Certificate, error) {
	return CertificateProfile{
		Kind:                   Seal,
		Name:                   "Test Bank AS",
		OrganizationIdentifier: BankOrganizationIdentifier,
		Roles:                  []string{"PSP_AS"},
		NotBefore:              from,
		NotAfter:               until,
	}.Template()
}

// IssueBankSeal issues the bank's QSealC, as BankSeal is, for pub: the
// public key of a key held elsewhere, such as in an HSM.
func (p *PKI) IssueBankSeal(pub crypto.PublicKey) (*x509.Certificate, error) {
	from := time.Now().Add(-time.Hour)
	tmpl, err := bankSealProfile(from, from.AddDate(certYears, 0, 0))
	if err != nil {
		return nil, err
	}
	return p.Issuing.Issue(tmpl, pub)
}

// issueBankSealEC issues the bank's QSealC for a P-256 key.
func issueBankSealEC(ca *Authority, from, until time.Time) (*ECKeyPair, error) {
	tmpl, err := bankSealProfile(from, until)
	if err != nil {
		return nil, err
	}
	kp, err := ca.IssueECKeyPair(tmpl)
	if err != nil {
		return nil, fmt.Errorf("testpki: bank seal (P-256): %w", err)
	}
	return kp, nil
}

// issueBankSeal issues the bank's QSealC for an RSA-2048 key.
func issueBankSeal(ca *Authority, from, until time.Time) (*KeyPair, error) {
	tmpl, err := bankSealProfile(from, until)
	if err != nil {
		return nil, err
	}
	kp, err := ca.IssueKeyPair(tmpl, 2048)
	if err != nil {
		return nil, fmt.Errorf("testpki: bank seal: %w", err)
	}
	return kp, nil
}

func issueServer(ca *Authority, from, until time.Time) (*KeyPair, error) {
	serial, err := NewSerial()
	if err != nil {
		return nil, err
	}
	return ca.IssueKeyPair(&x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"Test Bank AS"}, Country: []string{"NO"}},
		NotBefore:    from,
		NotAfter:     until,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}, 2048)
}

// issueGateway issues the client certificate a gateway presents to a split
// backend.
func issueGateway(ca *Authority, from, until time.Time) (*KeyPair, error) {
	serial, err := NewSerial()
	if err != nil {
		return nil, err
	}
	return ca.IssueKeyPair(&x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "obgw-gateway", Organization: []string{"Test Bank AS"}, Country: []string{"NO"}},
		NotBefore:    from,
		NotAfter:     until,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, 2048)
}
