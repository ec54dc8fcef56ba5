package testpki

import (
	"bytes"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

var (
	genOnce sync.Once
	genPKI  *PKI
	genErr  error
	genNow  = time.Now()
)

func generated(t testing.TB) *PKI {
	t.Helper()
	genOnce.Do(func() { genPKI, genErr = Generate(genNow) })
	if genErr != nil {
		t.Fatalf("Generate: %v", genErr)
	}
	return genPKI
}

// wantTPPs is the contract other packages rely on: ids, identifiers, roles,
// registry entries.
var wantTPPs = []struct {
	id, name, orgID string
	roles, regRoles []string
	status          string
}{
	{"tpp", "Test TPP AS", "PSDNO-FSA-987654321", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"aisp", "Test AISP AS", "PSDNO-FSA-987654322", []string{"PSP_AI"}, []string{"PSP_AI"}, StatusAuthorised},
	{"regrestricted", "Test Restricted TPP AS", "PSDNO-FSA-987654323", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI"}, StatusAuthorised},
	{"withdrawn", "Test Withdrawn TPP AS", "PSDNO-FSA-987654324", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusWithdrawn},
	{"unregistered", "Test Unregistered TPP AS", "PSDNO-FSA-987654325", []string{"PSP_AI", "PSP_PI"}, nil, ""},
	{"expired", "Test Expired TPP AS", "PSDNO-FSA-987654326", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"revoked", "Test Revoked TPP AS", "PSDNO-FSA-987654327", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"nopsd2", "Test No PSD2 TPP AS", "PSDNO-FSA-987654328", nil, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"untrusted", "Test Untrusted TPP AS", "PSDNO-FSA-987654329", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"rsa3072", "Test RSA3072 TPP AS", "PSDNO-FSA-987654330", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
	{"rsa4096", "Test RSA4096 TPP AS", "PSDNO-FSA-987654331", []string{"PSP_AI", "PSP_PI"}, []string{"PSP_AI", "PSP_PI"}, StatusAuthorised},
}

func TestGenerateTPPs(t *testing.T) {
	p := generated(t)
	if len(p.TPPs) != len(wantTPPs) {
		t.Fatalf("%d TPPs, want %d", len(p.TPPs), len(wantTPPs))
	}
	chainOpts := func(eku x509.ExtKeyUsage) x509.VerifyOptions {
		return x509.VerifyOptions{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), CurrentTime: genNow, KeyUsages: []x509.ExtKeyUsage{eku}}
	}
	minSerial := new(big.Int).Lsh(big.NewInt(1), 64)
	for _, w := range wantTPPs {
		t.Run(w.id, func(t *testing.T) {
			tpp := p.TPP(w.id)
			if tpp == nil {
				t.Fatal("missing")
			}
			if tpp.Name != w.name || tpp.OrganizationIdentifier != w.orgID || !slices.Equal(tpp.Roles, w.roles) ||
				!slices.Equal(tpp.RegistryRoles, w.regRoles) || tpp.RegistryStatus != w.status {
				t.Errorf("got %+v", tpp)
			}
			wantBits := map[string]int{"rsa3072": 3072, "rsa4096": 4096}[w.id]
			if wantBits == 0 {
				wantBits = 2048
			}
			for _, kp := range []*KeyPair{tpp.Seal, tpp.Web} {
				c := kp.Certificate
				if got := c.PublicKey.(*rsa.PublicKey).N.BitLen(); got != wantBits || !kp.Key.PublicKey.Equal(c.PublicKey) {
					t.Errorf("%s: key of %d bits (want %d) or key pair mismatch", c.Subject.CommonName, got, wantBits)
				}
				if c.SerialNumber.Sign() <= 0 || c.SerialNumber.Cmp(minSerial) < 0 {
					t.Errorf("serial %x is not a positive number of more than 64 bits", c.SerialNumber)
				}
				if c.Subject.Organization[0] != w.name || c.Subject.Country[0] != "NO" {
					t.Errorf("subject %v", c.Subject)
				}
				var orgIDs []any
				for _, atv := range c.Subject.Names {
					if atv.Type.Equal(OIDOrganizationID) {
						orgIDs = append(orgIDs, atv.Value)
					}
				}
				if len(orgIDs) != 1 || orgIDs[0] != w.orgID {
					t.Errorf("organizationIdentifier %v, want %s", orgIDs, w.orgID)
				}
				if w.id == "expired" {
					if !c.NotAfter.Before(genNow) || !c.NotBefore.Before(c.NotAfter) {
						t.Errorf("expired TPP valid %v..%v", c.NotBefore, c.NotAfter)
					}
				} else if c.NotBefore.After(genNow) || c.NotAfter.Before(genNow.AddDate(certYears, 0, -1)) {
					t.Errorf("valid %v..%v, want about %d years from now", c.NotBefore, c.NotAfter, certYears)
				}
			}
			seal, web := tpp.Seal.Certificate, tpp.Web.Certificate
			if seal.KeyUsage != x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment || len(seal.ExtKeyUsage) != 0 {
				t.Errorf("QSealC KU %b EKU %v", seal.KeyUsage, seal.ExtKeyUsage)
			}
			if web.KeyUsage != x509.KeyUsageDigitalSignature || !slices.Contains(web.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
				t.Errorf("QWAC KU %b EKU %v", web.KeyUsage, web.ExtKeyUsage)
			}
			opts := chainOpts(x509.ExtKeyUsageAny)
			if w.id == "expired" {
				opts.CurrentTime = seal.NotAfter.Add(-time.Hour)
			}
			_, sealErr := seal.Verify(opts)
			opts.KeyUsages = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
			_, webErr := web.Verify(opts)
			if w.id == "untrusted" {
				if sealErr == nil || webErr == nil {
					t.Error("untrusted TPP chains to the QTSP root")
				}
				if !bytes.Equal(seal.RawIssuer, p.Issuing.Certificate.RawSubject) {
					t.Error("impostor CA should carry the issuing CA's name")
				}
			} else if sealErr != nil || webErr != nil {
				t.Errorf("chain: seal %v, web %v", sealErr, webErr)
			}
		})
	}
}

func TestGenerateCAsAndCRL(t *testing.T) {
	p := generated(t)
	for _, tt := range []struct {
		a       *Authority
		cn, org string
	}{
		{p.Root, "Test QTSP Root CA", "Test QTSP AS"},
		{p.Issuing, "Test QTSP Issuing CA", "Test QTSP AS"},
		{p.TLSCA, "Test Bank TLS CA", "Test Bank AS"},
	} {
		c := tt.a.Certificate
		if c.Subject.CommonName != tt.cn || c.Subject.Organization[0] != tt.org || c.Subject.Country[0] != "NO" || !c.IsCA {
			t.Errorf("CA subject %v, IsCA %v", c.Subject, c.IsCA)
		}
		if c.NotAfter.Before(genNow.AddDate(caYears, 0, -1)) {
			t.Errorf("%s expires %v, want about %d years", tt.cn, c.NotAfter, caYears)
		}
	}
	if err := p.CRL.CheckSignatureFrom(p.Issuing.Certificate); err != nil {
		t.Errorf("CRL not signed by the issuing CA: %v", err)
	}
	var listed []*big.Int
	for _, e := range p.CRL.RevokedCertificateEntries {
		listed = append(listed, e.SerialNumber)
	}
	rev := p.TPP("revoked")
	want := []*big.Int{rev.Seal.Certificate.SerialNumber, rev.Web.Certificate.SerialNumber}
	if !slices.EqualFunc(listed, want, func(a, b *big.Int) bool { return a.Cmp(b) == 0 }) {
		t.Errorf("CRL lists %v, want the revoked TPP's %v", listed, want)
	}
	if p.CRL.NextUpdate.Before(genNow.AddDate(certYears, 0, -1)) {
		t.Errorf("CRL nextUpdate %v too soon", p.CRL.NextUpdate)
	}
}

func TestServerCertificate(t *testing.T) {
	p := generated(t)
	pool := x509.NewCertPool()
	pool.AddCert(p.TLSCA.Certificate)
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := p.Server.Certificate.Verify(x509.VerifyOptions{DNSName: host, Roots: pool, CurrentTime: genNow}); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
	if _, err := p.Server.Certificate.Verify(x509.VerifyOptions{Roots: p.QTSPPool(), CurrentTime: genNow}); err == nil {
		t.Error("server certificate chains to the QTSP root; it must come from the bank TLS CA only")
	}
}

// TestGatewayCertificate checks the gateway's client certificate for a
// split backend: it chains to the gateway CA for client authentication
// only, and to no other CA of the test PKI, and a TLS server requiring
// client certificates from the gateway CA accepts it and refuses the tpp
// QWAC.
func TestGatewayCertificate(t *testing.T) {
	p := generated(t)
	gwPool := x509.NewCertPool()
	gwPool.AddCert(p.GatewayCA.Certificate)
	client := x509.VerifyOptions{Roots: gwPool, CurrentTime: genNow, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := p.Gateway.Certificate.Verify(client); err != nil {
		t.Errorf("gateway certificate for client auth: %v", err)
	}
	server := client
	server.KeyUsages = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	if _, err := p.Gateway.Certificate.Verify(server); err == nil {
		t.Error("gateway certificate is valid for server auth")
	}
	tlsPool := x509.NewCertPool()
	tlsPool.AddCert(p.TLSCA.Certificate)
	for name, pool := range map[string]*x509.CertPool{"TLS": tlsPool, "QTSP": p.QTSPPool()} {
		if _, err := p.Gateway.Certificate.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: genNow, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err == nil {
			t.Errorf("gateway certificate chains to the %s CA", name)
		}
	}

	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{p.Server.TLSCertificate()},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    gwPool,
		MinVersion:   tls.VersionTLS13,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if c.(*tls.Conn).Handshake() == nil {
					_, _ = c.Write([]byte{1})
				}
			}()
		}
	}()
	dial := func(cert *KeyPair) error {
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{
			RootCAs: tlsPool, ServerName: "localhost",
			Certificates: []tls.Certificate{cert.TLSCertificate()},
		})
		if err != nil {
			return err
		}
		defer conn.Close()
		// In TLS 1.3 the server's verdict on the client certificate
		// arrives after the client's handshake: read to see it.
		_, err = conn.Read(make([]byte, 1))
		return err
	}
	if err := dial(p.Gateway); err != nil {
		t.Errorf("gateway certificate refused: %v", err)
	}
	if err := dial(p.TPP("tpp").Web); err == nil {
		t.Error("tpp QWAC accepted by a server trusting only the gateway CA")
	}
}

// TestMutualTLS runs a TLS handshake with the server certificate and the
// tpp QWAC as client certificate, as the gateway will see them.
func TestMutualTLS(t *testing.T) {
	p := generated(t)
	serverPool := x509.NewCertPool()
	serverPool.AddCert(p.TLSCA.Certificate)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{p.Server.TLSCertificate()},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    p.QTSPPool(),
		MinVersion:   tls.VersionTLS12,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []*x509.Certificate, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		if tc.Handshake() != nil {
			got <- nil
			return
		}
		got <- tc.ConnectionState().PeerCertificates
	}()
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{
		RootCAs:      serverPool,
		ServerName:   "localhost",
		Certificates: []tls.Certificate{p.TPP("tpp").Web.TLSCertificate()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Handshake(); err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte{0})
	defer conn.Close()
	peers := <-got
	if len(peers) == 0 || !peers[0].Equal(p.TPP("tpp").Web.Certificate) {
		t.Fatal("server did not see the tpp QWAC")
	}
}

func TestKeyPairHelpers(t *testing.T) {
	p := generated(t)
	kp := p.TPP("tpp").Seal
	if len(kp.Chain) != 1 || !kp.Chain[0].Equal(p.Issuing.Certificate) {
		t.Errorf("chain %v, want the issuing CA", kp.Chain)
	}
	id := kp.KeyID()
	wantPrefix := "SN=" + hexUpper(kp.Certificate.SerialNumber) + ",CA=CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO"
	if id != wantPrefix {
		t.Errorf("KeyID = %q, want %q", id, wantPrefix)
	}
}

func hexUpper(n *big.Int) string {
	b := []byte(hex.EncodeToString(n.Bytes()))
	return string(bytes.ToUpper(bytes.TrimLeft(b, "0")))
}

func TestWriteDirLoad(t *testing.T) {
	p := generated(t)
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	want := []string{FileQTSPCAs, FileQTSPCRL, FileTLSCA, FileServer, FileServerKey, FileGatewayCA, FileGateway, FileGatewayKey, FileBankSeal, FileBankSealKey, FileBankSealEC, FileBankSealECKey, FileRegistry}
	for _, tpp := range p.TPPs {
		want = append(want, SealFile(tpp.ID), SealKeyFile(tpp.ID), WebFile(tpp.ID), WebKeyFile(tpp.ID))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}

	q, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Root.Certificate.Equal(p.Root.Certificate) || !q.Issuing.Certificate.Equal(p.Issuing.Certificate) ||
		!q.TLSCA.Certificate.Equal(p.TLSCA.Certificate) || !q.Server.Certificate.Equal(p.Server.Certificate) ||
		!q.Server.Key.Equal(p.Server.Key) || !bytes.Equal(q.CRL.Raw, p.CRL.Raw) ||
		!q.GatewayCA.Certificate.Equal(p.GatewayCA.Certificate) || !q.Gateway.Certificate.Equal(p.Gateway.Certificate) ||
		!q.Gateway.Key.Equal(p.Gateway.Key) {
		t.Error("CAs, server, gateway or CRL differ after the round trip")
	}
	for i, tpp := range p.TPPs {
		l := q.TPPs[i]
		if l.ID != tpp.ID || l.RegistryStatus != tpp.RegistryStatus || !slices.Equal(l.RegistryRoles, tpp.RegistryRoles) ||
			!l.Seal.Certificate.Equal(tpp.Seal.Certificate) || !l.Web.Certificate.Equal(tpp.Web.Certificate) ||
			!l.Seal.Key.Equal(tpp.Seal.Key) || !l.Web.Key.Equal(tpp.Web.Key) || len(l.Seal.Chain) != len(tpp.Seal.Chain) {
			t.Errorf("TPP %s differs after the round trip", tpp.ID)
		}
	}

	// registry.json has exactly the documented shape.
	raw, err := os.ReadFile(filepath.Join(dir, FileRegistry))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string][]map[string]any
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	if len(reg) != 1 || len(reg["tpps"]) != 10 {
		t.Fatalf("registry has keys %v and %d entries, want only tpps with 10", reg, len(reg["tpps"]))
	}
	first := reg["tpps"][0]
	if len(first) != 4 || first["organizationIdentifier"] != "PSDNO-FSA-987654321" || first["name"] != "Test TPP AS" || first["status"] != "authorised" {
		t.Errorf("first registry entry %v", first)
	}
	if roles, _ := first["roles"].([]any); len(roles) != 2 || roles[0] != "PSP_AI" || roles[1] != "PSP_PI" {
		t.Errorf("first registry roles %v", first["roles"])
	}

	// Load notices a tampered directory.
	if err := os.WriteFile(filepath.Join(dir, SealFile("aisp")), certPEM(p.TPP("tpp").Seal.Certificate), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Error("Load accepted a directory whose aisp QSealC is tpp's")
	}
}

// TestCommittedTestdata checks the PKI committed under testdata/pki: it
// loads, matches the definitions above, and stays valid for years.
func TestCommittedTestdata(t *testing.T) {
	p, err := Load(filepath.Join("..", "testdata", "pki"))
	if err != nil {
		t.Fatalf("committed test PKI: %v (regenerate with `obgw testpki --out testdata/pki`)", err)
	}
	horizon := time.Now().AddDate(5, 0, 0)
	for _, tpp := range p.TPPs {
		if tpp.ID == "expired" {
			continue
		}
		for _, c := range []*x509.Certificate{tpp.Seal.Certificate, tpp.Web.Certificate} {
			if c.NotAfter.Before(horizon) {
				t.Errorf("%s expires %v, within five years", tpp.ID, c.NotAfter)
			}
		}
	}
	if p.TPP("expired").Seal.Certificate.NotAfter.After(time.Now()) {
		t.Error("expired TPP's QSealC is not expired")
	}
}
