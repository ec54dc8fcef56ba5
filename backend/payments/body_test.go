package payments

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// testToday is the bank's date in the tests.
const testToday = "2026-11-21"

// removeMarker, as the value of set, deletes the member.
type removeMarker struct{}

var remove = removeMarker{}

// raw is a JSON literal set as is (1.5, 1e3, "\ud800").
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// edit changes a body built from maps before it is marshalled.
type edit func(v any)

// set returns an edit that sets the member or element at the dotted path
// ("creditorAddress.country", "payments.0.creditorName") to v.
func set(path string, v any) edit {
	return func(root any) {
		segs := strings.Split(path, ".")
		cur := root
		for _, s := range segs[:len(segs)-1] {
			cur = step(cur, s)
		}
		last := segs[len(segs)-1]
		switch c := cur.(type) {
		case map[string]any:
			if v == remove {
				delete(c, last)
			} else {
				c[last] = v
			}
		case []any:
			i, _ := strconv.Atoi(last)
			c[i] = v
		default:
			panic("set: no container at " + path)
		}
	}
}

func step(cur any, s string) any {
	switch c := cur.(type) {
	case map[string]any:
		return c[s]
	case []any:
		i, err := strconv.Atoi(s)
		if err != nil {
			panic("step: " + s + " is not an index")
		}
		return c[i]
	}
	panic("step: no container at " + s)
}

// marshal writes v without HTML escaping.
func marshal(v any) []byte {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("marshal: " + err.Error())
	}
	return []byte(sb.String())
}

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
	if rc.path == "" {
		if len(errs) != 0 {
			t.Fatalf("valid body refused: %v", errs)
		}
		return
	}
	if len(errs) != 1 {
		t.Fatalf("want 1 error at %s (%q), got %d: %v", rc.path, rc.rule, len(errs), errs)
	}
	if errs[0].Path != rc.path || !strings.Contains(errs[0].Rule, rc.rule) {
		t.Fatalf("want %s: ...%s..., got %v", rc.path, rc.rule, errs[0])
	}
	if len(errs[0].Rule) > 200 {
		t.Errorf("rule text is %d bytes, want < 200: %q", len(errs[0].Rule), errs[0].Rule)
	}
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
	if len(errs) > MaxFieldErrors {
		t.Fatalf("%d errors, want at most %d", len(errs), MaxFieldErrors)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e.Path, "$") || len(e.Path) > 2*maxPathBytes || e.Rule == "" || len(e.Rule) > 200 {
			t.Fatalf("malformed error %q", e.Error())
		}
		for _, s := range []string{e.Path, e.Rule} {
			if !printableASCII(s) {
				t.Fatalf("error carries a character it must not: %q", s)
			}
		}
	}
}
