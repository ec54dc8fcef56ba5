package eidas

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/obgw/obgw/testpki"
)

// goldenQSealStatements is the qcStatements value of a test QSealC
// (QcCompliance, QcType eseal, QcPDS, PSD2 with PSP_AI and PSP_PI for
// NO-FSA), decoded with `openssl asn1parse` to the structure of ETSI
// TS 119 495.
const goldenQSealStatements = "3081bd3008060604008e4601013013060604008e4601063009060704008e460106023031060604008e46010530273025161f68747470733a2f2f717473702e6578616d706c652f7064735f656e2e7064661302656e30690606040081982702305f302630110607040081982701030c065053505f414930110607040081982701020c065053505f50490c2d5468652046696e616e6369616c2053757065727669736f727920417574686f72697479206f66204e6f727761790c064e4f2d465341"

func extensionValue(t *testing.T, c *x509.Certificate) []byte {
	t.Helper()
	for _, e := range c.Extensions {
		if e.Id.Equal(oidQCStatements) {
			return e.Value
		}
	}
	t.Fatalf("%s has no qcStatements", c.Subject.CommonName)
	return nil
}

// TestQCStatementsOfTestPKI checks that every generated certificate parses
// back to the values it was generated with.
func TestQCStatementsOfTestPKI(t *testing.T) {
	p := testPKI(t)
	for _, tpp := range p.TPPs {
		for _, c := range []struct {
			kind string
			cert *x509.Certificate
		}{{"qseal", tpp.Seal.Certificate}, {"qwac", tpp.Web.Certificate}} {
			t.Run(tpp.ID+"/"+c.kind, func(t *testing.T) {
				q, err := ParseQCStatements(extensionValue(t, c.cert))
				if err != nil {
					t.Fatalf("ParseQCStatements: %v", err)
				}
				if !q.Compliance || q.ESign || q.ESeal != (c.kind == "qseal") || q.Web != (c.kind == "qwac") {
					t.Errorf("got compliance=%v esign=%v eseal=%v web=%v", q.Compliance, q.ESign, q.ESeal, q.Web)
				}
				if tpp.Roles == nil {
					if q.PSD2 != nil {
						t.Errorf("PSD2 = %+v, want none", q.PSD2)
					}
					return
				}
				if q.PSD2 == nil {
					t.Fatal("PSD2 statement missing")
				}
				if !slices.Equal(q.PSD2.Roles, tpp.Roles) || q.PSD2.NCAName != testpki.NCAName || q.PSD2.NCAID != testpki.NCAID {
					t.Errorf("PSD2 = %+v, want roles %v, %q, %q", q.PSD2, tpp.Roles, testpki.NCAName, testpki.NCAID)
				}
				id, ok := OrganizationIdentifier(c.cert.Subject)
				if !ok || id != tpp.OrganizationIdentifier {
					t.Errorf("OrganizationIdentifier = %q, %v; want %q", id, ok, tpp.OrganizationIdentifier)
				}
			})
		}
	}
}

func TestParseQCStatementsGolden(t *testing.T) {
	der, _ := hex.DecodeString(goldenQSealStatements)
	q, err := ParseQCStatements(der)
	if err != nil {
		t.Fatal(err)
	}
	want := &QCStatements{Compliance: true, ESeal: true, PSD2: &PSD2Statement{
		Roles: []string{"PSP_AI", "PSP_PI"}, NCAName: "The Financial Supervisory Authority of Norway", NCAID: "NO-FSA"}}
	if q.Compliance != want.Compliance || q.ESeal != want.ESeal || q.Web || q.ESign ||
		!slices.Equal(q.PSD2.Roles, want.PSD2.Roles) || q.PSD2.NCAName != want.PSD2.NCAName || q.PSD2.NCAID != want.PSD2.NCAID {
		t.Errorf("got %+v %+v, want %+v %+v", q, q.PSD2, want, want.PSD2)
	}
}

func role(arc int, name string) testpki.PSD2Role {
	return testpki.PSD2Role{OID: asn1.ObjectIdentifier{0, 4, 0, 19495, 1, arc}, Name: name}
}

func TestParseQCStatements(t *testing.T) {
	psd2 := func(roles ...testpki.PSD2Role) *testpki.PSD2Spec {
		return &testpki.PSD2Spec{Roles: roles, NCAName: testpki.NCAName, NCAID: testpki.NCAID}
	}
	enc := func(s testpki.QCStatementsSpec) []byte {
		b, err := testpki.MarshalQCStatements(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	mustMarshal := func(v any) []byte {
		b, err := asn1.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type st struct {
		ID   asn1.ObjectIdentifier
		Info asn1.RawValue `asn1:"optional"`
	}
	type psd2Info struct {
		Roles   []testpki.PSD2Role
		NCAName string `asn1:"utf8"`
		NCAID   string `asn1:"utf8"`
	}
	raw := func(sts ...st) []byte { return mustMarshal(sts) }
	info := func(v any) asn1.RawValue { return asn1.RawValue{FullBytes: mustMarshal(v)} }
	good := enc(testpki.QCStatementsSpec{Compliance: true, Types: []asn1.ObjectIdentifier{testpki.OIDQcTypeESeal}, PSD2: psd2(role(3, "PSP_AI"))})

	tests := []struct {
		name      string
		der       []byte
		wantErr   string // substring; "" means success
		wantRoles []string
		check     func(*QCStatements) bool
	}{
		{name: "all four roles", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(1, "PSP_AS"), role(2, "PSP_PI"), role(3, "PSP_AI"), role(4, "PSP_IC"))}),
			wantRoles: []string{"PSP_AS", "PSP_PI", "PSP_AI", "PSP_IC"}},
		{name: "duplicate role kept once", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(3, "PSP_AI"), role(3, "PSP_AI"))}), wantRoles: []string{"PSP_AI"}},
		{name: "Unspecified role skipped", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(0, "Unspecified"), role(2, "PSP_PI"))}), wantRoles: []string{"PSP_PI"}},
		{name: "unknown role OID and name skipped", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(9, "PSP_XX"))}), wantRoles: []string{}},
		{name: "no roles", der: enc(testpki.QCStatementsSpec{PSD2: psd2()}), wantRoles: []string{}},
		{name: "empty statements", der: enc(testpki.QCStatementsSpec{}), check: func(q *QCStatements) bool { return !q.Compliance && q.PSD2 == nil }},
		{name: "unknown statements skipped", der: enc(testpki.QCStatementsSpec{Compliance: true, PDSURL: "https://x.example/pds.pdf"}),
			check: func(q *QCStatements) bool { return q.Compliance && q.PSD2 == nil }},
		{name: "several types", der: enc(testpki.QCStatementsSpec{Types: []asn1.ObjectIdentifier{testpki.OIDQcTypeESign, testpki.OIDQcTypeWeb, {1, 2, 3}}}),
			check: func(q *QCStatements) bool { return q.ESign && q.Web && !q.ESeal }},
		{name: "PrintableString NCA strings accepted", der: raw(st{ID: testpki.OIDPSD2Statement, Info: info(struct {
			Roles   []testpki.PSD2Role
			NCAName string `asn1:"printable"`
			NCAID   string `asn1:"printable"`
		}{[]testpki.PSD2Role{role(3, "PSP_AI")}, "FSA", "NO-FSA"})}), wantRoles: []string{"PSP_AI"}},

		{name: "role name does not match OID", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(2, "PSP_AI"))}), wantErr: "GEN-5.2.2-5"},
		{name: "known role name with foreign OID", der: enc(testpki.QCStatementsSpec{PSD2: psd2(testpki.PSD2Role{OID: asn1.ObjectIdentifier{1, 2, 3}, Name: "PSP_PI"})}), wantErr: "GEN-5.2.2-5"},
		{name: "role name lower case", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(3, "psp_ai"))}), wantErr: "GEN-5.2.2-5"},
		{name: "empty NCA name", der: enc(testpki.QCStatementsSpec{PSD2: &testpki.PSD2Spec{NCAID: "NO-FSA"}}), wantErr: "nCAName"},
		{name: "NCA name over 256", der: enc(testpki.QCStatementsSpec{PSD2: &testpki.PSD2Spec{NCAName: strings.Repeat("a", 257), NCAID: "NO-FSA"}}), wantErr: "nCAName"},
		{name: "NCA name of 256", der: enc(testpki.QCStatementsSpec{PSD2: &testpki.PSD2Spec{NCAName: strings.Repeat("a", 256), NCAID: "NO-FSA"}}), wantRoles: []string{}},
		{name: "NCA id with newline", der: enc(testpki.QCStatementsSpec{PSD2: &testpki.PSD2Spec{NCAName: "x", NCAID: "NO-\nFSA"}}), wantErr: "nCAId"},
		{name: "empty role name", der: enc(testpki.QCStatementsSpec{PSD2: psd2(role(3, ""))}), wantErr: "roleOfPspName"},
		{name: "duplicate QcCompliance", der: raw(st{ID: testpki.OIDQcCompliance}, st{ID: testpki.OIDQcCompliance}), wantErr: "twice"},
		{name: "duplicate QcType", der: raw(st{ID: testpki.OIDQcType, Info: info([]asn1.ObjectIdentifier{testpki.OIDQcTypeWeb})}, st{ID: testpki.OIDQcType, Info: info([]asn1.ObjectIdentifier{testpki.OIDQcTypeESeal})}), wantErr: "twice"},
		{name: "duplicate PSD2", der: raw(st{ID: testpki.OIDPSD2Statement, Info: info(psd2Info{nil, "a", "b"})}, st{ID: testpki.OIDPSD2Statement, Info: info(psd2Info{nil, "a", "b"})}), wantErr: "twice"},
		{name: "QcType without info", der: raw(st{ID: testpki.OIDQcType}), wantErr: "QcType"},
		{name: "QcType info not OIDs", der: raw(st{ID: testpki.OIDQcType, Info: info("eseal")}), wantErr: "QcType"},
		{name: "PSD2 without info", der: raw(st{ID: testpki.OIDPSD2Statement}), wantErr: "PSD2QcType"},
		{name: "PSD2 missing nCAId", der: raw(st{ID: testpki.OIDPSD2Statement, Info: info(struct {
			Roles   []testpki.PSD2Role
			NCAName string `asn1:"utf8"`
		}{nil, "a"})}), wantErr: "PSD2QcType"},
		{name: "PSD2 with extra field", der: raw(st{ID: testpki.OIDPSD2Statement, Info: info(struct {
			Roles       []testpki.PSD2Role
			NCAName, ID string
			Extra       int
		}{nil, "a", "NO-FSA", 1})}), wantRoles: []string{}}, // later TS versions may append fields
		{name: "trailing data", der: append(append([]byte{}, good...), 0x05, 0x00), wantErr: "trailing"},
		{name: "not a sequence", der: mustMarshal(42), wantErr: "SEQUENCE OF"},
		{name: "truncated", der: good[:len(good)-3], wantErr: "SEQUENCE OF"},
		{name: "nil input", der: nil, wantErr: "SEQUENCE OF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQCStatements(tt.der)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseQCStatements succeeded: %+v", q)
				}
				if !strings.Contains(err.Error(), tt.wantErr) || KindOf(err) != KindInvalid {
					t.Errorf("error %q (kind %v), want it to mention %q", err, KindOf(err), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseQCStatements: %v", err)
			}
			if tt.wantRoles != nil {
				if q.PSD2 == nil || !slices.Equal(q.PSD2.Roles, tt.wantRoles) {
					t.Errorf("PSD2 = %+v, want roles %v", q.PSD2, tt.wantRoles)
				}
			}
			if tt.check != nil && !tt.check(q) {
				t.Errorf("unexpected result %+v", q)
			}
		})
	}
}

func TestPSD2StatementHasRole(t *testing.T) {
	s := &PSD2Statement{Roles: []string{RoleAccountInformation}}
	if !s.HasRole("PSP_AI") || s.HasRole("PSP_PI") || s.HasRole("") {
		t.Errorf("HasRole wrong for %v", s.Roles)
	}
}
