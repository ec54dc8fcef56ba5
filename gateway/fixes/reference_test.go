package fixes

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
)

// This file is an independent model of the legacy rewrites, on a decoded
// tree instead of tokens, that the tests and the fuzzer compare Rewrite
// with.

var referenceDecimal = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

var referenceCashAccountTypes = map[string]string{
	"CACC": "CURRENT", "CARD": "CARD", "CASH": "CASH", "CHAR": "CHARGES",
	"COMM": "COMMISSION", "LOAN": "LOAN", "MOMA": "MONEY_MARKET", "ODFT": "OVERDRAFT",
	"OTHR": "OTHER", "SACC": "SETTLEMENT", "SLRY": "SALARY", "SVGS": "SAVINGS",
	"TAXE": "TAX", "TRAN": "TRANSACTING",
}

// referenceRewrite applies the legacy rewrites of legacy to v, decoded
// with UseNumber, in place; parent is the member name v is the value of.
func referenceRewrite(v any, legacy Set, parent string) any {
	switch t := v.(type) {
	case []any:
		for i := range t {
			t[i] = referenceRewrite(t[i], legacy, "")
		}
	case map[string]any:
		for k, c := range t {
			t[k] = referenceRewrite(c, legacy, k)
		}
		if legacy&bitAmountAsString != 0 {
			_, currency := t["currency"].(string)
			if a, ok := t["amount"].(string); ok && currency && referenceDecimal.MatchString(a) {
				t["amount"] = json.Number(a)
			}
		}
		if legacy&bitCardAccountSwitchAmounts != 0 {
			_, card := t["cardTransactionId"]
			ta, okT := t["transactionAmount"]
			oa, okO := t["originalAmount"]
			if card && okT && okO {
				t["transactionAmount"], t["originalAmount"] = oa, ta
			}
		}
		if legacy&bitLongerNames != 0 {
			_, account := t["resourceId"]
			if n, ok := t["name"].(string); ok && (account || parent == "account" || parent == "cardAccount") {
				if r := []rune(n); len(r) > 35 {
					t["name"] = string(r[:35])
				}
			}
		}
		if legacy&bitCashAccountTypeISO != 0 {
			if c, ok := t["cashAccountType"].(string); ok {
				if p, ok := referenceCashAccountTypes[c]; ok {
					t["cashAccountType"] = p
				}
			}
		}
	}
	return v
}

func decodeNumbers(t testing.TB, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %.80q: %v", data, err)
	}
	return v
}

// checkAgainstReference fails t unless out, the result of rewriting in
// with legacy, decodes to the reference rewrite of in.
func checkAgainstReference(t testing.TB, in, out []byte, legacy Set) {
	t.Helper()
	want := referenceRewrite(decodeNumbers(t, in), legacy, "")
	got := decodeNumbers(t, out)
	if !reflect.DeepEqual(got, want) {
		wantJSON, _ := json.Marshal(want)
		t.Fatalf("legacy %q:\n in  %.400s\n got %.400s\nwant %.400s", legacy, in, out, wantJSON)
	}
}

// jsonShape returns whether some object of the valid JSON data names a
// member twice (after unescaping), the deepest nesting, and the member
// names in document order.
func jsonShape(data []byte) (dup bool, depth int, keys []string) {
	type frame struct {
		object, wantKey bool
		names           map[string]bool
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return dup, depth, keys
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			k := tok.(string)
			dup = dup || stack[n-1].names[k]
			stack[n-1].names[k] = true
			stack[n-1].wantKey = false
			keys = append(keys, k)
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true, names: map[string]bool{}})
			depth = max(depth, len(stack))
		case json.Delim('['):
			stack = append(stack, frame{})
			depth = max(depth, len(stack))
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
