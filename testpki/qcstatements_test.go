package testpki

import (
	"encoding/asn1"
	"encoding/hex"
	"testing"
)

// TestMarshalQCStatementsGolden pins the encoding to bytes checked with
// `openssl asn1parse`: QcCompliance, QcType eseal, QcPDS, and the PSD2
// statement with PSP_AI and PSP_PI for NO-FSA as UTF8Strings.
func TestMarshalQCStatementsGolden(t *testing.T) {
	const want = "3081bd3008060604008e4601013013060604008e4601063009060704008e460106023031060604008e46010530273025161f68747470733a2f2f717473702e6578616d706c652f7064735f656e2e7064661302656e30690606040081982702305f302630110607040081982701030c065053505f414930110607040081982701020c065053505f50490c2d5468652046696e616e6369616c2053757065727669736f727920417574686f72697479206f66204e6f727761790c064e4f2d465341"
	roles, err := Roles("PSP_AI", "PSP_PI")
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalQCStatements(QCStatementsSpec{
		Compliance: true,
		Types:      []asn1.ObjectIdentifier{OIDQcTypeESeal},
		PDSURL:     pdsURL,
		PSD2:       &PSD2Spec{Roles: roles, NCAName: NCAName, NCAID: NCAID},
	})
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(got) != want {
		t.Errorf("got %x\nwant %s", got, want)
	}
}

func TestMarshalQCStatementsEdges(t *testing.T) {
	tests := []struct {
		name string
		spec QCStatementsSpec
		want string
	}{
		{"empty", QCStatementsSpec{}, "3000"},
		{"compliance only", QCStatementsSpec{Compliance: true}, "300a" + "3008" + "0606" + "04008e460101"},
		{"PSD2 without roles keeps the SEQUENCE", QCStatementsSpec{PSD2: &PSD2Spec{NCAName: "a", NCAID: "b"}},
			"3014" + "3012" + "0606040081982702" + "3008" + "3000" + "0c0161" + "0c0162"},
	}
	for _, tt := range tests {
		got, err := MarshalQCStatements(tt.spec)
		if err != nil || hex.EncodeToString(got) != tt.want {
			t.Errorf("%s: got %x, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

func TestRoles(t *testing.T) {
	r, err := Roles("PSP_AS", "PSP_PI", "PSP_AI", "PSP_IC")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 2, 3, 4} {
		if !r[i].OID.Equal(asn1.ObjectIdentifier{0, 4, 0, 19495, 1, want}) {
			t.Errorf("%s has OID %v", r[i].Name, r[i].OID)
		}
	}
	if _, err := Roles("PSP_XX"); err == nil {
		t.Error("unknown role accepted")
	}
}
