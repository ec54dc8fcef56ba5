package payments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestInstructionStoredForm: an instruction with every field set encodes
// to the stored form in testdata/instruction.json, and that form decodes
// to it. Renaming a field's JSON name would lose stored instructions: this
// test fails first.
func TestInstructionStoredForm(t *testing.T) {
	in := Instruction{
		Amount: Money{Currency: "NOK", Minor: 150000},
		Date:   "2026-11-30",
		Debtor: AccountReference{IBAN: "NO2912031010010", Currency: "NOK"},
		Creditor: []Payment{{
			Product:                           "sepa-credit-transfers",
			InstructedAmount:                  Money{Currency: "EUR", Minor: 12345},
			DebtorAccount:                     AccountReference{IBAN: "NO2912031010010"},
			CreditorAccount:                   AccountReference{IBAN: "DE89370400440532013000", BBAN: "0532013000", Currency: "EUR"},
			CreditorName:                      "Empfänger GmbH",
			CreditorAddress:                   &Address{StreetName: "Hauptstraße", BuildingNumber: "1", PostCode: "10115", TownName: "Berlin", Country: "DE"},
			CreditorAgent:                     "COBADEFFXXX",
			RequestedExecutionDate:            "2026-11-30",
			RemittanceInformationUnstructured: "",
			RemittanceInformationStructured:   &StructuredRemittance{Reference: "RF18539007547034", ReferenceType: "SCOR", ReferenceIssuer: "Empfänger"},
			RemittanceInformationStructuredArray: []StructuredRemittance{
				{Reference: "1", ReferenceType: "INVOICE", ReferenceIssuer: "x"},
			},
			EndToEndIdentification: "E2E-1",
		}},
	}
	got, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "instruction.json")
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got)+"\n" != string(want) {
		t.Fatalf("an instruction encodes as\n%s\nthe stored form is %s:\n%s", got, golden, want)
	}
	var back Instruction
	if err := json.Unmarshal(want, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Fatalf("the stored form decodes to %+v %v", back, err)
	}
}

// TestServedForm: the form a read serves drops members whose value is an
// empty string (nested too; the members are then in name order), keeps
// every other value as sent (numbers unrounded), is compact, and keeps a
// body without empty strings as sent but for its layout.
func TestServedForm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":"", "a":{"y":"","x":"1"}, "c":[{"d":""},"",12345678901234567890.5], "e":true, "f":null}`,
			`{"a":{"x":"1"},"c":[{},"",12345678901234567890.5],"e":true,"f":null}`},
		{`{"creditorName":"<Ola & Kari>","remittanceInformationUnstructured":"\u00e5"}`,
			`{"creditorName":"<Ola & Kari>","remittanceInformationUnstructured":"\u00e5"}`},
		{"{ \"z\" : 1,\n \"a\" : [ ] }", `{"z":1,"a":[]}`},
		{`{"x":"<\u00e5>","y":""}`, `{"x":"<å>"}`},
		{"{}", "{}"},
	} {
		got, err := ServedForm([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("ServedForm(%s) = %s %v, want %s", tc.in, got, err, tc.want)
		}
	}
	a, _ := ServedForm([]byte(`{"x":"1","y":""}`))
	b, _ := ServedForm([]byte("{ \"x\" : \"1\" }"))
	if string(a) != string(b) {
		t.Errorf("the same payment serves as %s and %s", a, b)
	}
	for _, bad := range []string{`{"x":"1"`, `{"x":""} {}`, `{"x":"1"} {}`} {
		if _, err := ServedForm([]byte(bad)); err == nil {
			t.Errorf("%s has a served form", bad)
		}
	}
	if _, err := ServedForm([]byte(`{"x":`)); err == nil {
		t.Error("a body that is not JSON has a served form")
	}
}

// FuzzServedForm: whatever JSON ServedForm takes, it makes valid compact
// JSON without empty-string members, and taking it again changes nothing.
func FuzzServedForm(f *testing.F) {
	f.Add([]byte(`{"instructedAmount":{"currency":"NOK","amount":"1.00"},"creditorName":"","x":[""]}`))
	f.Add([]byte(`{"a":"\u00e5","b":{"c":""}}`))
	f.Add([]byte(" [ 1 , \"\" ] "))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := ServedForm(body)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("ServedForm(%q) = %q, not JSON", body, out)
		}
		again, err := ServedForm(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("ServedForm(%q) = %q, then %q %v", body, out, again, err)
		}
	})
}
