package strictjson

import (
	"strings"
	"testing"
)

func TestClosestField(t *testing.T) {
	names := []string{"iban", "bban", "currency", "creditorName", "creditorAgent", "remittanceInformationUnstructured"}
	for _, tc := range []struct{ key, want string }{
		{"creditorNmae", "creditorName"},   // swap
		{"creditorNam", "creditorName"},    // deletion
		{"creditorNamee", "creditorName"},  // insertion
		{"creditorAgnet", "creditorAgent"}, // swap
		{"currancy", "currency"},           // substitution
		{"remittanceInformationUnstructred", "remittanceInformationUnstructured"},
		{"creditorXxxx", ""}, // too far
		{"ibn", "iban"},      // one edit from a short name
		{"ibbn", "iban"},     // one edit from iban, two from bban
		{"xban", ""},         // one edit from iban and from bban
		{"ixxn", ""},         // two edits from a short name
		{"", ""},
		{strings.Repeat("a", 65), ""},
	} {
		if got := closestField(tc.key, names); got != tc.want {
			t.Errorf("closestField(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestUnknownRule(t *testing.T) {
	fs := &FieldSet{
		Names: []string{"streetName", "country"},
		Hints: map[string]string{"city": "send it as townName"},
	}
	for _, tc := range []struct{ key, want string }{
		{"city", "send it as townName"},
		{"Country", "did you mean country? (field names are case-sensitive)"},
		{"streetNam", "is not a known field; did you mean streetName?"},
		{"colour", "is not a known field of this object; remove it"},
	} {
		if got := unknownRule(tc.key, fs); !strings.Contains(got, tc.want) {
			t.Errorf("unknownRule(%q) = %q, want ...%s...", tc.key, got, tc.want)
		}
	}
}
