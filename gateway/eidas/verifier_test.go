package eidas

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/testpki"
)

func TestVerifySealTestPKI(t *testing.T) {
	p := testPKI(t)
	v := testVerifier(t, p)
	tests := []struct {
		id       string
		wantKind Kind // ignored when ok
		ok       bool
		reason   string
	}{
		{id: "tpp", ok: true},
		{id: "aisp", ok: true},
		{id: "regrestricted", ok: true}, // registry restricts, not the certificate
		{id: "withdrawn", ok: true},     // the registry's business
		{id: "unregistered", ok: true},  // the registry's business
		{id: "rsa3072", ok: true},
		{id: "rsa4096", ok: true},
		{id: "expired", wantKind: KindExpired, reason: "expired"},
		{id: "revoked", wantKind: KindRevoked, reason: "revoked"},
		{id: "nopsd2", wantKind: KindInvalid, reason: "PSD2"},
		{id: "untrusted", wantKind: KindInvalid, reason: "trusted QTSP"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			tpp := mustTPP(t, p, tt.id)
			id, err := v.VerifySeal(tpp.Seal.Certificate)
			if !tt.ok {
				assertRejected(t, err, tt.wantKind, tt.reason)
				return
			}
			if err != nil {
				t.Fatalf("VerifySeal: %v", err)
			}
			if id.OrganizationIdentifier != tpp.OrganizationIdentifier || id.Name != tpp.Name || !slices.Equal(id.Roles, tpp.Roles) {
				t.Errorf("identity %q %q %v, want %q %q %v", id.OrganizationIdentifier, id.Name, id.Roles, tpp.OrganizationIdentifier, tpp.Name, tpp.Roles)
			}
			if id.NCAName != testpki.NCAName || id.NCAID != testpki.NCAID {
				t.Errorf("NCA %q %q", id.NCAName, id.NCAID)
			}
			if id.Fingerprint != sha256.Sum256(tpp.Seal.Certificate.Raw) || id.Certificate != tpp.Seal.Certificate {
				t.Error("fingerprint or certificate does not match the input")
			}
			if !id.NotAfter.Equal(tpp.Seal.Certificate.NotAfter) {
				t.Errorf("NotAfter = %v, want the leaf's %v (CAs outlive it)", id.NotAfter, tpp.Seal.Certificate.NotAfter)
			}
		})
	}
}

func TestVerifyWebTestPKI(t *testing.T) {
	p := testPKI(t)
	v := testVerifier(t, p)
	tests := []struct {
		id       string
		wantKind Kind
		ok       bool
		reason   string
	}{
		{id: "tpp", ok: true},
		{id: "aisp", ok: true},
		{id: "rsa4096", ok: true},
		{id: "expired", wantKind: KindExpired, reason: "expired"},
		{id: "revoked", wantKind: KindRevoked, reason: "revoked"},
		{id: "nopsd2", wantKind: KindInvalid, reason: "PSD2"},
		{id: "untrusted", wantKind: KindInvalid, reason: "trusted QTSP"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			tpp := mustTPP(t, p, tt.id)
			id, err := v.VerifyWeb(tpp.Web.Certificate)
			if !tt.ok {
				assertRejected(t, err, tt.wantKind, tt.reason)
				return
			}
			if err != nil {
				t.Fatalf("VerifyWeb: %v", err)
			}
			if id.OrganizationIdentifier != tpp.OrganizationIdentifier || id.Name != tpp.Name {
				t.Errorf("identity %q %q", id.OrganizationIdentifier, id.Name)
			}
		})
	}
	t.Run("QSealC as client certificate", func(t *testing.T) {
		_, err := v.VerifyWeb(mustTPP(t, p, "tpp").Seal.Certificate)
		assertRejected(t, err, KindInvalid, "clientAuth")
	})
	t.Run("QWAC as seal", func(t *testing.T) {
		_, err := v.VerifySeal(mustTPP(t, p, "tpp").Web.Certificate)
		assertRejected(t, err, KindInvalid, "QcType eseal")
	})
}

func assertRejected(t *testing.T, err error, kind Kind, reason string) {
	t.Helper()
	if err == nil {
		t.Fatal("accepted, want rejection")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not *Error", err, err)
	}
	if e.Kind != kind {
		t.Errorf("kind = %v (%q), want %v", e.Kind, e.Reason, kind)
	}
	if !strings.Contains(e.Reason, reason) {
		t.Errorf("reason %q does not mention %q", e.Reason, reason)
	}
	if len(e.Reason) >= 200 {
		t.Errorf("reason is %d characters, want < 200", len(e.Reason))
	}
}

// customCase describes a certificate derived from the "tpp" profile.
type customCase struct {
	name   string
	kind   testpki.CertificateKind
	tweak  func(*testpki.CertificateProfile)
	mutate func(t *testing.T, c *x509.Certificate)
	pub    func(t *testing.T) any // nil: fresh RSA-2048
	ok     bool
	want   Kind
	reason string
	check  func(t *testing.T, id *Identity)
}

func qcExtension(t *testing.T, spec testpki.QCStatementsSpec, critical bool) pkix.Extension {
	t.Helper()
	der, err := testpki.MarshalQCStatements(spec)
	if err != nil {
		t.Fatal(err)
	}
	return pkix.Extension{Id: testpki.OIDQCStatements, Critical: critical, Value: der}
}

func sealStatements(roles []testpki.PSD2Role, ncaID string) testpki.QCStatementsSpec {
	return testpki.QCStatementsSpec{Compliance: true, Types: []asn1.ObjectIdentifier{testpki.OIDQcTypeESeal},
		PSD2: &testpki.PSD2Spec{Roles: roles, NCAName: testpki.NCAName, NCAID: ncaID}}
}

func setSubjectOrgID(c *x509.Certificate, values ...any) {
	var extra []pkix.AttributeTypeAndValue
	for _, v := range values {
		extra = append(extra, pkix.AttributeTypeAndValue{Type: testpki.OIDOrganizationID, Value: v})
	}
	c.Subject.ExtraNames = extra
}

func TestVerifyCustomCertificates(t *testing.T) {
	p := testPKI(t)
	v := testVerifier(t, p)
	key1024, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	aiPI, _ := testpki.Roles("PSP_AI", "PSP_PI")
	tests := []customCase{
		{name: "baseline seal", ok: true},
		{name: "baseline web", kind: testpki.Web, ok: true},
		{name: "KU keyEncipherment only", mutate: func(t *testing.T, c *x509.Certificate) { c.KeyUsage = x509.KeyUsageKeyEncipherment }, want: KindInvalid, reason: "nonRepudiation"},
		{name: "no KU", mutate: func(t *testing.T, c *x509.Certificate) { c.KeyUsage = 0 }, want: KindInvalid, reason: "key usage"},
		{name: "KU nonRepudiation only", mutate: func(t *testing.T, c *x509.Certificate) { c.KeyUsage = x509.KeyUsageContentCommitment }, ok: true},
		{name: "KU digitalSignature only", mutate: func(t *testing.T, c *x509.Certificate) { c.KeyUsage = x509.KeyUsageDigitalSignature }, ok: true},
		{name: "seal with EKU emailProtection", mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}
		}, ok: true},
		{name: "no qcStatements", mutate: func(t *testing.T, c *x509.Certificate) { c.ExtraExtensions = nil }, want: KindInvalid, reason: "QCStatements"},
		{name: "no QcCompliance", mutate: func(t *testing.T, c *x509.Certificate) {
			s := sealStatements(aiPI, "NO-FSA")
			s.Compliance = false
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, s, false)}
		}, want: KindInvalid, reason: "QcCompliance"},
		{name: "seal typed web", mutate: func(t *testing.T, c *x509.Certificate) {
			s := sealStatements(aiPI, "NO-FSA")
			s.Types = []asn1.ObjectIdentifier{testpki.OIDQcTypeWeb}
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, s, false)}
		}, want: KindInvalid, reason: "eseal"},
		{name: "seal without QcType", mutate: func(t *testing.T, c *x509.Certificate) {
			s := sealStatements(aiPI, "NO-FSA")
			s.Types = nil
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, s, false)}
		}, want: KindInvalid, reason: "eseal"},
		{name: "role name not matching OID", mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, sealStatements([]testpki.PSD2Role{role(2, "PSP_AI")}, "NO-FSA"), false)}
		}, want: KindInvalid, reason: "GEN-5.2.2-5"},
		{name: "no known role", mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, sealStatements(nil, "NO-FSA"), false)}
		}, want: KindInvalid, reason: "roles"},
		{name: "orgId prefix differs from NCA id", tweak: func(pr *testpki.CertificateProfile) { pr.OrganizationIdentifier = "PSDSE-FI-123456" }, want: KindInvalid, reason: "nCAId"},
		{name: "NCA id differs from orgId prefix", tweak: func(pr *testpki.CertificateProfile) { pr.NCAID = "NO-FSAX" }, want: KindInvalid, reason: "nCAId"},
		{name: "orgId and NCA id both Swedish", tweak: func(pr *testpki.CertificateProfile) {
			pr.OrganizationIdentifier, pr.NCAID, pr.NCAName = "PSDSE-FINA-44059", "SE-FINA", "Finansinspektionen"
		}, ok: true, check: func(t *testing.T, id *Identity) {
			if id.NCAID != "SE-FINA" || id.NCAName != "Finansinspektionen" {
				t.Errorf("NCA %q %q", id.NCAID, id.NCAName)
			}
		}},
		{name: "orgId missing", mutate: func(t *testing.T, c *x509.Certificate) { setSubjectOrgID(c) }, want: KindInvalid, reason: "organizationIdentifier"},
		{name: "orgId twice", mutate: func(t *testing.T, c *x509.Certificate) { setSubjectOrgID(c, "PSDNO-FSA-1", "PSDNO-FSA-2") }, want: KindInvalid, reason: "exactly one"},
		{name: "orgId not PSD form", mutate: func(t *testing.T, c *x509.Certificate) { setSubjectOrgID(c, "NTRNO-987654321") }, want: KindInvalid, reason: "PSD<CC>"},
		{name: "orgId as UTF8String", mutate: func(t *testing.T, c *x509.Certificate) {
			setSubjectOrgID(c, asn1.RawValue{Tag: asn1.TagUTF8String, Bytes: []byte("PSDNO-FSA-987654321")})
		}, ok: true, check: func(t *testing.T, id *Identity) {
			if id.OrganizationIdentifier != "PSDNO-FSA-987654321" {
				t.Errorf("orgId %q", id.OrganizationIdentifier)
			}
		}},
		{name: "RSA-1024", pub: func(t *testing.T) any { return &key1024.PublicKey }, want: KindInvalid, reason: "1024 bits"},
		{name: "ECDSA", pub: func(t *testing.T) any { return &ecKey.PublicKey }, want: KindInvalid, reason: "not RSA"},
		{name: "not yet valid", tweak: func(pr *testpki.CertificateProfile) { pr.NotBefore = time.Now().Add(time.Hour) }, want: KindExpired, reason: "not valid before"},
		{name: "expired a second ago", tweak: func(pr *testpki.CertificateProfile) { pr.NotAfter = time.Now().Add(-time.Second) }, want: KindExpired, reason: "expired"},
		{name: "critical qcStatements", mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, sealStatements(aiPI, "NO-FSA"), true)}
		}, ok: true},
		{name: "other unknown critical extension", mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtraExtensions = append(c.ExtraExtensions, pkix.Extension{Id: asn1.ObjectIdentifier{1, 2, 3, 4}, Critical: true, Value: []byte{5, 0}})
		}, want: KindInvalid, reason: "does not verify"},
		{name: "no O: name from CN", mutate: func(t *testing.T, c *x509.Certificate) {
			c.Subject.Organization = nil
			c.Subject.CommonName = "Seal CN"
		},
			ok: true, check: func(t *testing.T, id *Identity) {
				if id.Name != "Seal CN" {
					t.Errorf("Name = %q, want the CN", id.Name)
				}
			}},
		{name: "web without clientAuth", kind: testpki.Web, mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		}, want: KindInvalid, reason: "clientAuth"},
		{name: "web with EKU any only", kind: testpki.Web, mutate: func(t *testing.T, c *x509.Certificate) { c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageAny} }, want: KindInvalid, reason: "clientAuth"},
		{name: "web KU keyEncipherment only", kind: testpki.Web, mutate: func(t *testing.T, c *x509.Certificate) { c.KeyUsage = x509.KeyUsageKeyEncipherment }, want: KindInvalid, reason: "digitalSignature"},
		{name: "web typed eseal", kind: testpki.Web, mutate: func(t *testing.T, c *x509.Certificate) {
			c.ExtraExtensions = []pkix.Extension{qcExtension(t, sealStatements(aiPI, "NO-FSA"), false)}
		}, want: KindInvalid, reason: "QcType web"},
	}
	tpp := mustTPP(t, p, "tpp")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := testpki.CertificateProfile{
				Kind: tt.kind, Name: tpp.Name, OrganizationIdentifier: tpp.OrganizationIdentifier, Roles: tpp.Roles,
				DNSName: "tpp.example", NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			}
			if tt.tweak != nil {
				tt.tweak(&prof)
			}
			tmpl, err := prof.Template()
			if err != nil {
				t.Fatal(err)
			}
			if tt.mutate != nil {
				tt.mutate(t, tmpl)
			}
			var pub any
			if tt.pub != nil {
				pub = tt.pub(t)
			} else {
				pub = &tpp.Seal.Key.PublicKey // key generation is not what is tested
			}
			cert, err := p.Issuing.Issue(tmpl, pub)
			if err != nil {
				t.Fatal(err)
			}
			verify := v.VerifySeal
			if tt.kind == testpki.Web {
				verify = v.VerifyWeb
			}
			id, err := verify(cert)
			if !tt.ok {
				assertRejected(t, err, tt.want, tt.reason)
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if tt.check != nil {
				tt.check(t, id)
			}
		})
	}
}

// recordingChecker records the revocation questions it is asked.
type recordingChecker struct {
	asked [][2]*x509.Certificate
	err   error
}

func (r *recordingChecker) Revoked(cert, issuer *x509.Certificate) (bool, error) {
	r.asked = append(r.asked, [2]*x509.Certificate{cert, issuer})
	return false, r.err
}

func TestVerifierConfiguration(t *testing.T) {
	p := testPKI(t)
	seal := mustTPP(t, p, "tpp").Seal.Certificate
	issuingOnly := x509.NewCertPool()
	issuingOnly.AddCert(p.Issuing.Certificate)

	t.Run("nil roots fail closed", func(t *testing.T) {
		_, err := (&Verifier{Intermediates: p.IntermediatePool()}).VerifySeal(seal)
		assertRejected(t, err, KindUnavailable, "no trusted QTSP CAs")
	})
	t.Run("nil certificate", func(t *testing.T) {
		_, err := (&Verifier{Roots: p.QTSPPool()}).VerifySeal(nil)
		assertRejected(t, err, KindInvalid, "no certificate")
	})
	t.Run("issuing CA as anchor", func(t *testing.T) {
		if _, err := (&Verifier{Roots: issuingOnly}).VerifySeal(seal); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("root without intermediates", func(t *testing.T) {
		_, err := (&Verifier{Roots: p.QTSPPool()}).VerifySeal(seal)
		assertRejected(t, err, KindInvalid, "trusted QTSP")
	})
	t.Run("TLS CA is not a QTSP", func(t *testing.T) {
		pool := x509.NewCertPool()
		pool.AddCert(p.TLSCA.Certificate)
		_, err := (&Verifier{Roots: pool, Intermediates: p.IntermediatePool()}).VerifySeal(seal)
		assertRejected(t, err, KindInvalid, "trusted QTSP")
	})
	t.Run("revocation checker asked with the chain's next certificate", func(t *testing.T) {
		rc := &recordingChecker{}
		if _, err := (&Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Revocation: rc}).VerifySeal(seal); err != nil {
			t.Fatal(err)
		}
		if len(rc.asked) != 2 || rc.asked[0][0] != seal || !rc.asked[0][1].Equal(p.Issuing.Certificate) ||
			!rc.asked[1][0].Equal(p.Issuing.Certificate) || !rc.asked[1][1].Equal(p.Root.Certificate) {
			t.Errorf("checker asked %d questions, want (seal, issuing CA) then (issuing CA, root)", len(rc.asked))
		}
	})
	t.Run("revocation checker failure fails closed", func(t *testing.T) {
		rc := &recordingChecker{err: errors.New("OCSP responder down")}
		_, err := (&Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Revocation: rc}).VerifySeal(seal)
		assertRejected(t, err, KindUnavailable, "cannot be checked")
		if !errors.Is(err, rc.err) {
			t.Error("cause not wrapped for logs")
		}
	})
	t.Run("expired TPP valid at an earlier time", func(t *testing.T) {
		exp := mustTPP(t, p, "expired").Seal.Certificate
		at := exp.NotAfter.Add(-time.Hour)
		if _, err := (&Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool(), Now: func() time.Time { return at }}).VerifySeal(exp); err != nil {
			t.Fatalf("expired TPP's seal should verify at %v: %v", at, err)
		}
	})
	t.Run("no revocation checker accepts revoked", func(t *testing.T) {
		if _, err := (&Verifier{Roots: p.QTSPPool(), Intermediates: p.IntermediatePool()}).VerifySeal(mustTPP(t, p, "revoked").Seal.Certificate); err != nil {
			t.Fatal(err)
		}
	})
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindInvalid: "CERTIFICATE_INVALID", KindExpired: "CERTIFICATE_EXPIRED", KindRevoked: "CERTIFICATE_REVOKED", KindUnavailable: "SERVICE_UNAVAILABLE", Kind(99): "CERTIFICATE_INVALID"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", k, k.String(), want)
		}
	}
	if KindOf(errors.New("x")) != KindInvalid || KindOf(&Error{Kind: KindRevoked}) != KindRevoked {
		t.Error("KindOf wrong")
	}
}
