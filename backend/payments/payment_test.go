package payments

import (
	"strings"
	"testing"
)

func kidRef(ref, typ string) map[string]any {
	m := map[string]any{"reference": ref}
	if typ != "" {
		m["referenceType"] = typ
	}
	return m
}

func TestParsePayment(t *testing.T) {
	type P = Payment
	structured := func(ref, typ string) []edit {
		return []edit{set(fieldUnstructured, remove), set(fieldStructured, kidRef(ref, typ))}
	}
	array := func(refs ...map[string]any) []edit {
		elems := make([]any, len(refs))
		for i, r := range refs {
			elems[i] = r
		}
		return []edit{set(fieldUnstructured, remove), set(fieldStructuredArray, elems)}
	}
	runParseCases(t, paymentBody, ParsePayment, []parseCase[P]{
		good("domestic", equal(P{
			Product: ProductDomestic, InstructedAmount: Money{"NOK", 12345},
			DebtorAccount: AccountReference{BBAN: bbanA}, CreditorAccount: AccountReference{IBAN: ibanB},
			CreditorName: "Ola Nordmann", RequestedExecutionDate: "2026-11-23",
			RemittanceInformationUnstructured: "Faktura 42", EndToEndIdentification: "e2e-1",
		})),
		good[P]("instant", nil).in(ProductInstant),
		good("sepa", func(t *testing.T, p P) { equal(Money{"EUR", 1000})(t, p.InstructedAmount) }).in(ProductSEPA),
		good("cross-border", func(t *testing.T, p P) {
			equal(&Address{TownName: "London", Country: "GB"})(t, p.CreditorAddress)
		}).in(ProductCrossBorder),
		good[P]("minimal body", nil, set("requestedExecutionDate", remove), set(fieldUnstructured, remove),
			set("endToEndIdentification", remove)),

		// instructedAmount.
		bad[P]("instructedAmount missing", "$.instructedAmount", "is required", set("instructedAmount", remove)),
		bad[P]("instructedAmount not an object", "$.instructedAmount", "must be an object", set("instructedAmount", "1.00")),
		good("amount with one decimal", func(t *testing.T, p P) { equal(int64(150))(t, p.InstructedAmount.Minor) },
			set("instructedAmount.amount", "1.5")),
		bad[P]("amount as JSON number", "$.instructedAmount.amount", "JSON string", set("instructedAmount.amount", 123.45)),
		good("amount whole", func(t *testing.T, p P) { equal(int64(10000))(t, p.InstructedAmount.Minor) },
			set("instructedAmount.amount", "100")),
		bad[P]("amount with comma", "$.instructedAmount.amount", "'.' as decimal separator", set("instructedAmount.amount", "1,50")),
		bad[P]("amount with exponent", "$.instructedAmount.amount", "'.' as decimal separator", set("instructedAmount.amount", "1e3")),
		bad[P]("amount with plus", "$.instructedAmount.amount", "no sign", set("instructedAmount.amount", "+1.00")),
		bad[P]("amount ending in a point", "$.instructedAmount.amount", "decimal amount", set("instructedAmount.amount", "1.")),
		bad[P]("amount empty", "$.instructedAmount.amount", "is required", set("instructedAmount.amount", remove)),
		good("amount with leading zeros", func(t *testing.T, p P) { equal(int64(700))(t, p.InstructedAmount.Minor) },
			set("instructedAmount.amount", "007.00")),
		good("amount smallest", func(t *testing.T, p P) { equal(int64(1))(t, p.InstructedAmount.Minor) },
			set("instructedAmount.amount", "0.01")),
		bad[P]("amount zero", "$.instructedAmount.amount", "greater than zero", set("instructedAmount.amount", "0.00")),
		bad[P]("amount negative", "$.instructedAmount.amount", "greater than zero", set("instructedAmount.amount", "-5.00")),
		good("amount largest", func(t *testing.T, p P) { equal(int64(99999999999999))(t, p.InstructedAmount.Minor) },
			set("instructedAmount.amount", "999999999999.99")),
		bad[P]("amount too large", "$.instructedAmount.amount", "at most 999999999999.99",
			set("instructedAmount.amount", "1000000000000.00")),
		bad[P]("amount with three decimals in NOK", "$.instructedAmount.amount", "more than 2 decimals",
			set("instructedAmount.amount", "1.005")),
		good("JPY whole amount", func(t *testing.T, p P) { equal(Money{"JPY", 150})(t, p.InstructedAmount) },
			set("instructedAmount", map[string]any{"currency": "JPY", "amount": "150"})).in(ProductCrossBorder),
		bad[P]("JPY with decimals", "$.instructedAmount.amount", "JPY has no decimals",
			set("instructedAmount", map[string]any{"currency": "JPY", "amount": "1.5"})).in(ProductCrossBorder),
		good("BHD three decimals", func(t *testing.T, p P) { equal(Money{"BHD", 1500})(t, p.InstructedAmount) },
			set("instructedAmount", map[string]any{"currency": "BHD", "amount": "1.500"})).in(ProductCrossBorder),
		bad[P]("amount too long", "$.instructedAmount.amount", "decimal amount",
			set("instructedAmount.amount", strings.Repeat("0", 24)+"1")),
		bad[P]("currency missing", "$.instructedAmount.currency", "is required", set("instructedAmount.currency", remove)),
		bad[P]("currency lower case", "$.instructedAmount.currency", "ISO 4217", set("instructedAmount.currency", "nok")),
		bad[P]("currency not in the list", "$.instructedAmount.currency", "ISO 4217", set("instructedAmount.currency", "XBT")),
		bad[P]("domestic in EUR", "$.instructedAmount.currency", "must be NOK for "+ProductDomestic,
			set("instructedAmount.currency", "EUR")),
		bad[P]("instant in SEK", "$.instructedAmount.currency", "must be NOK for "+ProductInstant,
			set("instructedAmount.currency", "SEK")).in(ProductInstant),
		bad[P]("sepa in NOK", "$.instructedAmount.currency", "must be EUR for "+ProductSEPA,
			set("instructedAmount.currency", "NOK")).in(ProductSEPA),
		good[P]("cross-border in NOK", nil, set("instructedAmount.currency", "NOK")).in(ProductCrossBorder),
		bad[P]("amount unknown field", "$.instructedAmount.value", "is not a known field", set("instructedAmount.value", "1")),

		// Accounts.
		good("debtor as Norwegian IBAN", func(t *testing.T, p P) { equal(AccountReference{IBAN: ibanA})(t, p.DebtorAccount) },
			set("debtorAccount", map[string]any{"iban": ibanA})),
		good[P]("debtor as IBAN and BBAN of one account", nil, set("debtorAccount", map[string]any{"iban": ibanA, "bban": bbanA})),
		bad[P]("debtor IBAN and BBAN of two accounts", "$.debtorAccount.iban", "names another account",
			set("debtorAccount", map[string]any{"iban": ibanA, "bban": bbanB})),
		bad[P]("debtorAccount missing", "$.debtorAccount", "is required", set("debtorAccount", remove)),
		bad[P]("debtorAccount null", "$.debtorAccount", "must not be null", set("debtorAccount", nil)),
		bad[P]("debtorAccount empty", "$.debtorAccount", "must hold an iban or a bban", set("debtorAccount", map[string]any{})),
		bad[P]("bban with wrong check digit", "$.debtorAccount.bban", "MOD11", set("debtorAccount.bban", "86011117948")),
		bad[P]("bban with dots", "$.debtorAccount.bban", "without spaces or dots", set("debtorAccount.bban", "8601.11.17947")),
		bad[P]("iban with wrong check digits", "$.creditorAccount.iban", "valid check digits", set("creditorAccount.iban", "NO9486011117947")),
		bad[P]("Norwegian iban with a bad BBAN", "$.creditorAccount.iban", "valid check digits", set("creditorAccount.iban", "NO3886011117948")),
		bad[P]("iban with spaces", "$.creditorAccount.iban", "no spaces", set("creditorAccount.iban", "NO29 1203 1010 010")),
		good("account currency", func(t *testing.T, p P) { equal("NOK")(t, p.DebtorAccount.Currency) }, set("debtorAccount.currency", "NOK")),
		bad[P]("account currency invalid", "$.debtorAccount.currency", "ISO 4217", set("debtorAccount.currency", "kr")),
		bad[P]("account by pan", "$.debtorAccount.pan", "does not support", set("debtorAccount.pan", "1234")),
		bad[P]("account field typo", "$.debtorAccount.bbna", "did you mean bban?", set("debtorAccount.bbna", bbanB)),
		bad[P]("domestic creditor abroad", "$.creditorAccount.iban", "Norwegian IBAN", set("creditorAccount.iban", ibanDE)),
		bad[P]("instant creditor abroad", "$.creditorAccount.iban", "Norwegian IBAN",
			set("creditorAccount.iban", ibanDE)).in(ProductInstant),
		bad[P]("debtor abroad", "$.debtorAccount.iban", "account at this bank",
			set("debtorAccount", map[string]any{"iban": ibanDE}), set("creditorAccount", map[string]any{"iban": ibanGB})).in(ProductCrossBorder),
		good[P]("domestic to own other account", nil, set("creditorAccount", map[string]any{"bban": bbanB})),
		bad[P]("debtor and creditor one account", "$.creditorAccount", "must differ from debtorAccount",
			set("creditorAccount", map[string]any{"bban": bbanA})),
		bad[P]("debtor and creditor one account, IBAN and BBAN", "$.creditorAccount", "must differ",
			set("creditorAccount", map[string]any{"iban": ibanA})),
		bad[P]("sepa debtor as bban", "$.debtorAccount.bban", "send the account as iban",
			set("debtorAccount", map[string]any{"bban": bbanA})).in(ProductSEPA),
		bad[P]("sepa creditor as bban", "$.creditorAccount.bban", "send the account as iban",
			set("creditorAccount", map[string]any{"bban": bbanB})).in(ProductSEPA),
		bad[P]("sepa creditor empty", "$.creditorAccount.iban", "identifies accounts by IBAN",
			set("creditorAccount", map[string]any{})).in(ProductSEPA),
		good[P]("sepa to a Norwegian IBAN", nil, set("creditorAccount.iban", ibanB)).in(ProductSEPA),
		good("cross-border to a foreign bban with BIC", func(t *testing.T, p P) {
			equal(AccountReference{BBAN: "12345678"})(t, p.CreditorAccount)
			equal("NWBKGB2L")(t, p.CreditorAgent)
		}, set("creditorAccount", map[string]any{"bban": "12345678"}), set("creditorAgent", "NWBKGB2L")).in(ProductCrossBorder),
		bad[P]("cross-border foreign bban without BIC", "$.creditorAgent", "is required when creditorAccount has a bban",
			set("creditorAccount", map[string]any{"bban": "12345678"})).in(ProductCrossBorder),
		bad[P]("cross-border foreign bban with spaces", "$.creditorAccount.bban", "1 to 30 letters and digits",
			set("creditorAccount", map[string]any{"bban": "1234 5678"}), set("creditorAgent", "NWBKGB2L")).in(ProductCrossBorder),

		// creditorAgent.
		good("BIC of 11", func(t *testing.T, p P) { equal("DNBANOKKXXX")(t, p.CreditorAgent) }, set("creditorAgent", "DNBANOKKXXX")),
		bad[P]("BIC of 9", "$.creditorAgent", "BIC of 8 or 11", set("creditorAgent", "DNBANOKKX")),
		bad[P]("BIC lower case", "$.creditorAgent", "BIC of 8 or 11", set("creditorAgent", "dnbanokk")),
		bad[P]("BIC of an unknown country", "$.creditorAgent", "BIC of 8 or 11", set("creditorAgent", "DNBAQQKK")),

		// creditorName and creditorAddress.
		good[P]("creditorName of 70", nil, set("creditorName", strings.Repeat("å", 70))),
		bad[P]("creditorName of 71", "$.creditorName", "longer than 70", set("creditorName", strings.Repeat("å", 71))),
		bad[P]("creditorName missing", "$.creditorName", "is required", set("creditorName", remove)),
		bad[P]("creditorName blank", "$.creditorName", "must not be empty", set("creditorName", "  ")),
		bad[P]("creditorName a number", "$.creditorName", "must be a string, got number", set("creditorName", 5)),
		good("address", func(t *testing.T, p P) {
			equal(&Address{StreetName: "Storgata", BuildingNumber: "1", PostCode: "0155", TownName: "Oslo", Country: "NO"})(t, p.CreditorAddress)
		}, set("creditorAddress", map[string]any{"streetName": "Storgata", "buildingNumber": "1", "postCode": "0155",
			"townName": "Oslo", "country": "NO"})),
		bad[P]("address country lower case", "$.creditorAddress.country", "ISO 3166", set("creditorAddress", map[string]any{"country": "no"})),
		bad[P]("address without country", "$.creditorAddress.country", "is required", set("creditorAddress", map[string]any{"townName": "Oslo"})),
		bad[P]("address street of 71", "$.creditorAddress.streetName", "longer than 70",
			set("creditorAddress", map[string]any{"streetName": strings.Repeat("a", 71), "country": "NO"})),
		bad[P]("address with BG 1.2 city", "$.creditorAddress.city", "send it as townName",
			set("creditorAddress", map[string]any{"city": "Oslo", "country": "NO"})),
		bad[P]("cross-border without address", "$.creditorAddress", "is required for "+ProductCrossBorder,
			set("creditorAddress", remove)).in(ProductCrossBorder),

		// requestedExecutionDate.
		good("execution today", func(t *testing.T, p P) { equal(testToday)(t, p.RequestedExecutionDate) }, set("requestedExecutionDate", testToday)),
		bad[P]("execution yesterday", "$.requestedExecutionDate", "must not be in the past (today is 2026-11-21",
			set("requestedExecutionDate", "2026-11-20")),
		good[P]("execution a year ahead", nil, set("requestedExecutionDate", "2027-11-21")),
		bad[P]("execution over a year ahead", "$.requestedExecutionDate", "at most one year ahead (no later than 2027-11-21)",
			set("requestedExecutionDate", "2027-11-22")),
		bad[P]("execution date-time", "$.requestedExecutionDate", "ISO 8601 date", set("requestedExecutionDate", "2026-11-23T10:00:00Z")),
		bad[P]("execution 31 November", "$.requestedExecutionDate", "ISO 8601 date", set("requestedExecutionDate", "2026-11-31")),

		// Remittance.
		bad[P]("unstructured of 141", "$."+fieldUnstructured, "longer than 140", set(fieldUnstructured, strings.Repeat("a", 141))),
		good[P]("unstructured of 140", nil, set(fieldUnstructured, strings.Repeat("a", 140))),
		good("structured KID MOD10", func(t *testing.T, p P) {
			equal(&StructuredRemittance{Reference: kidMOD10, ReferenceType: "SCOR"})(t, p.RemittanceInformationStructured)
		}, structured(kidMOD10, "SCOR")...),
		bad[P]("structured bad KID", "$."+fieldStructured+".reference", "valid KID", structured("79927398710", "SCOR")...),
		good("structured type kid in lower case", func(t *testing.T, p P) {
			equal("KID")(t, p.RemittanceInformationStructured.ReferenceType)
		}, structured(kidMOD11, "kid")...),
		bad[P]("structured KID with letters", "$."+fieldStructured+".reference", "valid KID", structured("12A4", "KID")...),
		good[P]("structured KID without type", nil, structured(kidMOD11Dash, "")...),
		bad[P]("structured bad KID without type", "$."+fieldStructured+".reference", "valid KID", structured("0230", "")...),
		bad[P]("structured other type in domestic", "$."+fieldStructured+".referenceType", "must be SCOR or KID", structured(kidMOD10, "INVOICE")...),
		good[P]("structured other type in sepa", nil, structured("invoice 42", "INVOICE")...).in(ProductSEPA),
		good[P]("sepa SCOR RF reference", nil, structured(creditorRefRF, "SCOR")...).in(ProductSEPA),
		bad[P]("sepa SCOR bad RF reference", "$."+fieldStructured+".reference", "RF creditor reference",
			structured("RF19539007547034", "SCOR")...).in(ProductSEPA),
		bad[P]("domestic SCOR RF reference", "$."+fieldStructured+".reference", "valid KID", structured(creditorRefRF, "SCOR")...),
		bad[P]("structured without reference", "$."+fieldStructured+".reference", "is required",
			set(fieldUnstructured, remove), set(fieldStructured, map[string]any{"referenceType": "SCOR"})),
		good("structured array", func(t *testing.T, p P) {
			equal([]StructuredRemittance{{Reference: kidMOD10, ReferenceType: "SCOR"}, {Reference: kidMOD11, ReferenceType: "KID"}})(t,
				p.RemittanceInformationStructuredArray)
		}, array(kidRef(kidMOD10, "SCOR"), kidRef(kidMOD11, "KID"))...),
		bad[P]("structured array bad KID", "$."+fieldStructuredArray+"[1].reference", "valid KID",
			array(kidRef(kidMOD10, "SCOR"), kidRef("12345", "KID"))...),
		bad[P]("structured array empty", "$."+fieldStructuredArray, "holds 0 structured references; send 1 to 10", array()...),
		bad[P]("structured array of 11", "$."+fieldStructuredArray, "holds 11", array(
			kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""),
			kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""), kidRef(kidMOD10, ""),
			kidRef(kidMOD10, ""))...),
		bad[P]("structured array element not an object", "$."+fieldStructuredArray+"[0]", "must be an object",
			set(fieldUnstructured, remove), set(fieldStructuredArray, []any{"x"})),
		rawBody[P]("unstructured then structured", `{"instructedAmount":{"currency":"NOK","amount":"1"},"debtorAccount":{"bban":"`+bbanA+
			`"},"creditorAccount":{"bban":"`+bbanB+`"},"creditorName":"A","remittanceInformationUnstructured":"x",`+
			`"remittanceInformationStructured":{"reference":"`+kidMOD10+`"}}`,
			"$."+fieldStructured, "cannot be sent together with "+fieldUnstructured),
		rawBody[P]("structured then unstructured", `{"instructedAmount":{"currency":"NOK","amount":"1"},"debtorAccount":{"bban":"`+bbanA+
			`"},"creditorAccount":{"bban":"`+bbanB+`"},"creditorName":"A","remittanceInformationStructured":{"reference":"`+kidMOD10+
			`"},"remittanceInformationUnstructured":"x"}`,
			"$."+fieldUnstructured, "cannot be sent together with "+fieldStructured),
		bad[P]("structured and array", "$."+fieldStructuredArray, "cannot be sent together with "+fieldStructured,
			set(fieldUnstructured, remove), set(fieldStructured, kidRef(kidMOD10, "")), set(fieldStructuredArray, []any{kidRef(kidMOD10, "")})),
		good("unstructured null beside structured", func(t *testing.T, p P) { equal("")(t, p.RemittanceInformationUnstructured) },
			set(fieldUnstructured, nil), set(fieldStructured, kidRef(kidMOD10, ""))),

		// endToEndIdentification.
		good[P]("endToEnd of 35", nil, set("endToEndIdentification", strings.Repeat("a", 35))),
		bad[P]("endToEnd of 36", "$.endToEndIdentification", "1 to 35 printable ASCII", set("endToEndIdentification", strings.Repeat("a", 36))),
		bad[P]("endToEnd not ASCII", "$.endToEndIdentification", "printable ASCII", set("endToEndIdentification", "fakturaø")),

		// Characters, anywhere.
		bad[P]("escaped newline", "$.creditorName", "control character U+000A", set("creditorName", "Ola\nNordmann")),
		bad[P]("emoji", "$.creditorName", "outside the Basic Multilingual Plane", set("creditorName", "Ola 😀")),
		bad[P]("bidi override", "$."+fieldUnstructured, "bidirectional control character U+202E", set(fieldUnstructured, "a\u202eb")),
		bad[P]("lone surrogate", "$.creditorName", "lone surrogate", set("creditorName", raw(`"\ud800"`))),
		bad[P]("C1 control", "$.creditorAddress.townName", "C1 control", set("creditorAddress", map[string]any{"townName": "\u0085", "country": "NO"})),
		rawBody[P]("invalid UTF-8", "{\"creditorName\":\"\xff\"}", "$.creditorName", "not valid UTF-8"),
		rawBody[P]("control character in a member name", "{\"a\\u0000\":1}", "$", "member name that holds control character U+0000"),

		// Structure.
		bad[P]("unknown field", "$.creditorNmae", "did you mean creditorName?", set("creditorNmae", "x")),
		bad[P]("field in another case", "$.CreditorName", "did you mean creditorName? (field names are case-sensitive)", set("CreditorName", "x")),
		bad[P]("unsupported Berlin Group field", "$.ultimateCreditor", "does not support", set("ultimateCreditor", "x")),
		bad[P]("field far from any", "$.colour", "is not a known field of this object", set("colour", "x")),
		rawBody[P]("not JSON", `{"creditorName":}`, "$.creditorName", "invalid JSON: unexpected character '}' at byte 16"),
		rawBody[P]("array body", `[]`, "$", "must be an object, got array"),
		rawBody[P]("empty body", ``, "$", "invalid JSON: unexpected end of body"),
		rawBody[P]("trailing data", `{} {}`, "$", "after the JSON value"),
		rawBody[P]("too deep", strings.Repeat("[", 33)+strings.Repeat("]", 33), "$"+strings.Repeat("[0]", 32), "nesting deeper than 32"),
		rawBody[P]("too large", `{"x":"`+strings.Repeat("a", MaxBodyBytes)+`"}`, "$", "larger than 32 KiB"),
	})
}

// TestParsePaymentDuplicates: a member sent twice is refused, naming the
// second, at any depth (a map cannot hold a duplicate, so the valid body
// is edited as text).
func TestParsePaymentDuplicates(t *testing.T) {
	valid := string(marshal(paymentBody(ProductDomestic)))
	for _, tc := range []struct {
		name, after, insert, path string
	}{
		{"top level", `{`, `"creditorName":"Kari",`, "$.creditorName"},
		{"nested", `"instructedAmount":{`, `"amount":"1.00",`, "$.instructedAmount.amount"},
		{"null twice", `{`, `"ultimateDebtor":null,"ultimateDebtor":null,`, "$.ultimateDebtor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(valid, tc.after, tc.after+tc.insert, 1)
			_, errs := ParsePayment(ProductDomestic, []byte(body), testToday)
			want := "appears more than once"
			if tc.name == "null twice" {
				want = "does not support" // refused as unsupported before being counted twice
			}
			if len(errs) == 0 || errs[0].Path != tc.path || !strings.Contains(errs[0].Rule, want) {
				t.Fatalf("got %v, want %s: %s", errs, tc.path, want)
			}
		})
	}
}

// TestParsePaymentManyErrors: every broken rule is reported, up to
// MaxFieldErrors, the last of which says there are more.
func TestParsePaymentManyErrors(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("{")
	for i := 0; i < 80; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"x` + strings.Repeat("y", i) + `":1`)
	}
	sb.WriteString("}")
	_, errs := ParsePayment(ProductDomestic, []byte(sb.String()), testToday)
	if len(errs) != MaxFieldErrors || !strings.Contains(errs[MaxFieldErrors-1].Rule, "more than 49 errors") {
		t.Fatalf("got %d errors, last %v", len(errs), errs[len(errs)-1])
	}
	checkFieldErrors(t, errs)
	b := paymentBody(ProductDomestic)
	set("instructedAmount.amount", "0")(b)
	set("creditorName", remove)(b)
	set("endToEndIdentification", "ø")(b)
	_, errs = ParsePayment(ProductDomestic, marshal(b), testToday)
	if got := errorPaths(errs); got != "$.instructedAmount.amount $.creditorName $.endToEndIdentification" {
		t.Fatalf("got %s", got)
	}
}

func errorPaths(errs []FieldError) string {
	paths := make([]string, len(errs))
	for i, e := range errs {
		paths[i] = e.Path
	}
	return strings.Join(paths, " ")
}

func TestParsePaymentUnknownProduct(t *testing.T) {
	for _, product := range []string{"", "domestic", "SEPA-credit-transfers", "target-2-payments"} {
		if KnownProduct(product) {
			t.Errorf("KnownProduct(%q)", product)
		}
		_, errs := ParsePayment(product, marshal(paymentBody(ProductDomestic)), testToday)
		if len(errs) != 1 || errs[0].Path != "$" || !strings.Contains(errs[0].Rule, "payment product is not known") {
			t.Errorf("%q: %v", product, errs)
		}
	}
	for _, product := range []string{ProductDomestic, ProductInstant, ProductSEPA, ProductCrossBorder} {
		if !KnownProduct(product) {
			t.Errorf("!KnownProduct(%q)", product)
		}
	}
}

func TestParsePaymentBadToday(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a malformed today")
		}
	}()
	ParsePayment(ProductDomestic, marshal(paymentBody(ProductDomestic)), "21.11.2026")
}

// TestParseConcurrent: parses running at once (sharing the checker pool)
// each get their own result, valid or not.
func TestParseConcurrent(t *testing.T) {
	bodies := map[string][]byte{}
	for _, p := range []string{ProductDomestic, ProductInstant, ProductSEPA, ProductCrossBorder} {
		bodies[p] = marshal(paymentBody(p))
	}
	broken := paymentBody(ProductDomestic)
	set("creditorName", remove)(broken)
	brokenBody := marshal(broken)
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				for product, body := range bodies {
					p, errs := ParsePayment(product, body, testToday)
					if errs != nil || p.Product != product {
						done <- &FieldError{Path: product, Rule: "refused or mixed up"}
						return
					}
				}
				if _, errs := ParsePayment(ProductDomestic, brokenBody, testToday); len(errs) != 1 || errs[0].Path != "$.creditorName" {
					done <- &FieldError{Path: "broken", Rule: "wrong errors"}
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
