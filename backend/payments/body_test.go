package payments

import (
	"reflect"
	"testing"

	"github.com/obgw/obgw/backend/strictjson/strictjsontest"
)

// testToday is the bank's date in the tests.
const testToday = "2026-11-21"

// Bodies are built from maps and edited with strictjsontest, as the other
// strictjson parsers' tests do.
type edit = strictjsontest.Edit

var (
	// set returns an edit that sets the member or element at the dotted
	// path ("creditorAddress.country", "payments.0.creditorName") to v.
	set = strictjsontest.Set
	// remove, as the value of set, deletes the member.
	remove = strictjsontest.Remove
	// raw is a JSON literal set as is (1.5, 1e3, "\ud800").
	raw = strictjsontest.Raw
	// marshal writes a body without HTML escaping.
	marshal = strictjsontest.Marshal
)

// Accounts used by the tests; every one passes its checks.
const (
	bbanA         = "86011117947"
	ibanA         = "NO9386011117947" // bbanA
	bbanB         = "12031010010"
	ibanB         = "NO2912031010010" // bbanB
	ibanDE        = "DE89370400440532013000"
	ibanGB        = "GB82WEST12345698765432"
	kidMOD10      = "79927398713"
	kidMOD11      = "86011117947"
	kidMOD11Dash  = "023-"
	creditorRefRF = "RF18539007547034"
)

// paymentBody returns a valid body of a payment of product.
func paymentBody(product string) map[string]any {
	b := map[string]any{
		"instructedAmount":                  map[string]any{"currency": "NOK", "amount": "123.45"},
		"debtorAccount":                     map[string]any{"bban": bbanA},
		"creditorAccount":                   map[string]any{"iban": ibanB},
		"creditorName":                      "Ola Nordmann",
		"requestedExecutionDate":            "2026-11-23",
		"remittanceInformationUnstructured": "Faktura 42",
		"endToEndIdentification":            "e2e-1",
	}
	switch product {
	case ProductSEPA:
		b["instructedAmount"] = map[string]any{"currency": "EUR", "amount": "10.00"}
		b["debtorAccount"] = map[string]any{"iban": ibanA}
		b["creditorAccount"] = map[string]any{"iban": ibanDE}
	case ProductCrossBorder:
		b["instructedAmount"] = map[string]any{"currency": "GBP", "amount": "10.00"}
		b["creditorAccount"] = map[string]any{"iban": ibanGB}
		b["creditorAddress"] = map[string]any{"townName": "London", "country": "GB"}
	}
	return b
}

// ruleCase is one row of the rule tables: edits applied to a valid body
// of product (domestic when empty), and the one FieldError expected (none
// when path is empty).
type ruleCase struct {
	name    string
	product string
	edits   []edit
	body    string // used as the whole body instead of the edited one, when isRaw
	isRaw   bool
	path    string
	rule    string // fragment of the expected rule text
}

func (rc ruleCase) productOr() string {
	if rc.product == "" {
		return ProductDomestic
	}
	return rc.product
}

// checkErrors asserts that errs is exactly the one error rc expects, or
// nothing for a valid case.
func checkErrors(t *testing.T, rc ruleCase, errs []FieldError) {
	t.Helper()
	strictjsontest.ExpectOne(t, errs, rc.path, rc.rule)
}

// parseCase is a ruleCase for a parser returning T, with a check of the
// parsed value for valid cases.
type parseCase[T any] struct {
	ruleCase
	check func(t *testing.T, v T)
}

// bad is an invalid case of the domestic product.
func bad[T any](name, path, rule string, edits ...edit) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, path: path, rule: rule, edits: edits}}
}

// good is a valid case of the domestic product, with a check of the
// parsed value (may be nil).
func good[T any](name string, check func(*testing.T, T), edits ...edit) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, edits: edits}, check: check}
}

// in sets the product of a case.
func (pc parseCase[T]) in(product string) parseCase[T] {
	pc.product = product
	return pc
}

// rawBody is a case with a whole body of its own.
func rawBody[T any](name, body, path, rule string) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, body: body, isRaw: true, path: path, rule: rule}}
}

// runParseCases runs cases against parse, each on base(product) with its
// edits.
func runParseCases[T any](t *testing.T, base func(string) map[string]any, parse func(string, []byte, string) (T, []FieldError), cases []parseCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.body)
			if !tc.isRaw {
				v := base(tc.productOr())
				for _, e := range tc.edits {
					e(v)
				}
				b = marshal(v)
			}
			v, errs := parse(tc.productOr(), b, testToday)
			if testing.Verbose() && len(errs) > 0 {
				t.Log(errs[0].Error())
			}
			checkErrors(t, tc.ruleCase, errs)
			checkFieldErrors(t, errs)
			if tc.path != "" {
				if !reflect.ValueOf(&v).Elem().IsZero() {
					t.Errorf("value returned with errors: %+v", v)
				}
				return
			}
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

// equal returns a check that the parsed value is want.
func equal[T any](want T) func(*testing.T, T) {
	return func(t *testing.T, got T) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	}
}

// checkFieldErrors asserts what every refusal must be: bounded, each with
// a "$" path and a short rule, and nothing in either that could not go
// into an error body or a log line as it is.
func checkFieldErrors(t *testing.T, errs []FieldError) {
	t.Helper()
	strictjsontest.CheckFieldErrors(t, errs)
}
