package eidas

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

func TestOrganizationIdentifier(t *testing.T) {
	oid := asn1.ObjectIdentifier{2, 5, 4, 97}
	atv := func(v any) pkix.AttributeTypeAndValue { return pkix.AttributeTypeAndValue{Type: oid, Value: v} }
	cn := pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: "PSDNO-FSA-1"}
	tests := []struct {
		name   string
		names  []pkix.AttributeTypeAndValue
		want   string
		wantOK bool
	}{
		{"present", []pkix.AttributeTypeAndValue{cn, atv("PSDNO-FSA-987654321")}, "PSDNO-FSA-987654321", true},
		{"absent", []pkix.AttributeTypeAndValue{cn}, "", false},
		{"twice", []pkix.AttributeTypeAndValue{atv("PSDNO-FSA-1"), atv("PSDNO-FSA-2")}, "", false},
		{"twice, same value", []pkix.AttributeTypeAndValue{atv("PSDNO-FSA-1"), atv("PSDNO-FSA-1")}, "", false},
		{"not a string", []pkix.AttributeTypeAndValue{atv([]byte("PSDNO-FSA-1"))}, "", false},
		{"empty", []pkix.AttributeTypeAndValue{atv("")}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := OrganizationIdentifier(pkix.Name{Names: tt.names})
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestParseOrganizationIdentifier(t *testing.T) {
	tests := []struct {
		in, nca, number string
		ok              bool
	}{
		{"PSDNO-FSA-987654321", "NO-FSA", "987654321", true},
		{"PSDGB-FCA-793202", "GB-FCA", "793202", true},
		{"PSDDE-BAFIN-12-3/x", "DE-BAFIN", "12-3/x", true},
		{"PSDXX-ABCDEFGH-1", "XX-ABCDEFGH", "1", true},
		{"PSDNO-AB-Ø", "NO-AB", "Ø", true},
		{"PSDXX-ABCDEFGHI-1", "", "", false}, // NCA of 9 letters
		{"PSDNO-F-1", "", "", false},         // NCA of 1 letter
		{"PSDNO-FSA-", "", "", false},
		{"PSDNO-FSA", "", "", false},
		{"PSDno-FSA-1", "", "", false},
		{"PSDNO-fsa-1", "", "", false},
		{"PSDNOR-FSA-1", "", "", false},
		{"PSD-NO-FSA-1", "", "", false},
		{"NTRNO-987654321", "", "", false},
		{"psdNO-FSA-1", "", "", false},
		{"PSDNO-FS1-1", "", "", false},
		{"PSDNO-FSA-98\n7", "", "", false},
		{"PSDNO-FSA-98\u00857", "", "", false},
		{"", "", "", false},
		{"PSD", "", "", false},
	}
	for _, tt := range tests {
		nca, number, ok := ParseOrganizationIdentifier(tt.in)
		if nca != tt.nca || number != tt.number || ok != tt.ok {
			t.Errorf("ParseOrganizationIdentifier(%q) = %q, %q, %v; want %q, %q, %v", tt.in, nca, number, ok, tt.nca, tt.number, tt.ok)
		}
	}
}
