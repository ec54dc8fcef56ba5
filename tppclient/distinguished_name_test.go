package tppclient

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"strings"
	"testing"
)

func pkixName(cn string) pkix.Name { return pkix.Name{CommonName: cn} }

var (
	oidCN  = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidO   = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidC   = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidUID = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidSN  = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidST  = asn1.ObjectIdentifier{2, 5, 4, 8}
)

func rdn(atvs ...pkix.AttributeTypeAndValue) pkix.RelativeDistinguishedNameSET { return atvs }

func atv(oid asn1.ObjectIdentifier, v any) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

func TestRFC2253(t *testing.T) {
	tests := []struct {
		name string
		seq  pkix.RDNSequence
		want string
	}{
		{"order is reversed", pkix.RDNSequence{rdn(atv(oidC, "NO")), rdn(atv(oidO, "Test QTSP AS")), rdn(atv(oidCN, "Root"))}, "CN=Root,O=Test QTSP AS,C=NO"},
		{"organizationIdentifier by name", pkix.RDNSequence{rdn(atv(oidOrganizationIdentifier, "PSDNO-FSA-987654321")), rdn(atv(oidCN, "x"))}, "CN=x,organizationIdentifier=PSDNO-FSA-987654321"},
		{"serialNumber and ST", pkix.RDNSequence{rdn(atv(oidST, "Oslo")), rdn(atv(oidSN, "918713867"))}, "SERIALNUMBER=918713867,ST=Oslo"},
		{"multi-valued RDN", pkix.RDNSequence{rdn(atv(oidC, "NO")), rdn(atv(oidCN, "a"), atv(oidUID, "b"))}, "CN=a+UID=b,C=NO"},
		{"special characters", pkix.RDNSequence{rdn(atv(oidCN, `a,b+c"d\e<f>g;h=i`))}, `CN=a\,b\+c\"d\\e\<f\>g\;h=i`},
		{"leading and trailing space, leading hash", pkix.RDNSequence{rdn(atv(oidO, " x ")), rdn(atv(oidCN, "#1 a#"))}, `CN=\#1 a#,O=\ x\ `},
		{"non-ASCII stays UTF-8", pkix.RDNSequence{rdn(atv(oidO, "Test QTSP Ø AS"))}, "O=Test QTSP Ø AS"},
		{"control character as hex", pkix.RDNSequence{rdn(atv(oidCN, "a\x01b"))}, `CN=a\01b`},
		{"unknown type as hex DER", pkix.RDNSequence{rdn(atv(asn1.ObjectIdentifier{1, 2, 3, 4}, "x"))}, "1.2.3.4=#130178"},
		{"BMPString", pkix.RDNSequence{rdn(atv(oidCN, asn1.RawValue{Tag: asn1.TagBMPString, Bytes: []byte{0, 'A', 0, 0xd8}}))}, "CN=AØ"},
		{"non-string value as hex DER", pkix.RDNSequence{rdn(atv(oidCN, 5))}, "CN=#020105"},
		{"empty name", pkix.RDNSequence{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			der, err := asn1.Marshal(tt.seq)
			if err != nil {
				t.Fatal(err)
			}
			got, err := RFC2253(der)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("RFC2253() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRFC2253RejectsBadInput(t *testing.T) {
	for name, der := range map[string][]byte{
		"not DER":        {0x01, 0x02},
		"trailing bytes": append(mustMarshal(t, pkix.RDNSequence{}), 0),
		"odd BMPString":  mustMarshal(t, pkix.RDNSequence{rdn(atv(oidCN, asn1.RawValue{Tag: asn1.TagBMPString, Bytes: []byte{0}}))}),
	} {
		if _, err := RFC2253(der); err == nil {
			t.Errorf("%s: RFC2253 accepted it", name)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	der, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestDefaultKeyID(t *testing.T) {
	pki := newTestPKI(t)
	got, err := DefaultKeyID(pki.leaf)
	if err != nil {
		t.Fatal(err)
	}
	want := `SN=ABCDEF0123,CA=organizationIdentifier=NTRNO-987654321,CN=Test QTSP Issuing CA\, Norway,O=Test QTSP AS,C=NO`
	if got != want {
		t.Errorf("DefaultKeyID() = %q, want %q", got, want)
	}
	if strings.Contains(got, "#") {
		t.Errorf("DefaultKeyID() = %q has a hex value; organizationIdentifier must be written by name", got)
	}
}
