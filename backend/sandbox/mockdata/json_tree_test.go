package mockdata

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// toAny converts a decoded node to what encoding/json decodes with
// UseNumber, for comparison (the last of duplicate members wins, as
// there).
func (t *tree) toAny(i int32) any {
	n := &t.nodes[i]
	switch n.kind {
	case kindNull:
		return nil
	case kindBool:
		return n.flag
	case kindNumber:
		return json.Number(n.text)
	case kindString:
		return n.text
	case kindArray:
		out := []any{}
		for _, e := range t.elements(n) {
			out = append(out, t.toAny(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range t.objectMembers(n) {
		out[m.key] = t.toAny(m.val)
	}
	return out
}

// boundErrors are the decoder's own limits, which encoding/json lacks.
var boundErrors = []string{"nesting deeper than", "more than 100 members", "JSON values", "number longer than"}

// compareWithEncodingJSON checks decodeJSON against encoding/json: the
// same documents accepted (but for the decoder's bounds), decoding to the
// same values.
func compareWithEncodingJSON(t *testing.T, b []byte) {
	tr, err := decodeJSON(string(b))
	valid := json.Valid(b)
	if err != nil {
		for _, s := range boundErrors {
			if strings.Contains(err.msg, s) {
				return
			}
		}
		if valid {
			t.Fatalf("decodeJSON refused valid JSON %q: %v", b, err.fieldError())
		}
		return
	}
	if !valid {
		t.Fatalf("decodeJSON accepted invalid JSON %q", b)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if got := tr.toAny(root); !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeJSON(%q) = %#v, encoding/json gives %#v", b, got, want)
	}
}

func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`null`, `true`, `false`, `0`, `-0`, `-12.5e+3`, `1E-2`, `""`, `"abc"`, `[]`, `{}`, ` [ 1 , 2 ] `,
		`{"a":{"b":[1,{"c":null}]},"d":"e"}`, `{"a":1,"a":2}`,
		`"\u00e6\u00F8\u00e5"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`,
		`"\"\\\/\b\f\n\r\t"`, "\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}",
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `0x10`, `NaN`, `tru`, `nul`, `"abc`, `"\x"`, `"\u12"`, `"\u12g4"`,
		"\"a\tb\"", `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `[] x`, ``, ` `,
		"\ufeff[]", `{"a":[}`, `[`, `{`, `{"`, `"\`,
	}
	for _, d := range docs {
		t.Run(d, func(t *testing.T) { compareWithEncodingJSON(t, []byte(d)) })
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	tests := []struct {
		in, path, rule string
	}{
		{`[1,]`, "$[1]", "invalid JSON: unexpected character ']' at byte 3"},
		{`{"a":{"b c":[0,x]}}`, "$.a['b c'][1]", "unexpected character 'x' at byte 15"},
		{`{"a":1 "b":2}`, "$", "expected ',' or '}' after an object member"},
		{`[1 2]`, "$", "expected ',' or ']' after an array element"},
		{`{"a"}`, "$", "expected ':' after a member name"},
		{`{1:2}`, "$", "expected a member name, got character '1'"},
		{`[01]`, "$", "expected ',' or ']' after an array element, got character '1' at byte 2"},
		{`[-]`, "$[0]", "expected a digit, got character ']'"},
		{`[1.]`, "$[0]", "expected a digit after '.'"},
		{`[1e]`, "$[0]", "expected a digit in the exponent"},
		{`["\x"]`, "$[0]", "invalid escape"},
		{`["\u12"]`, "$[0]", "invalid \\u escape"},
		{`["abc`, "$[0]", "unterminated string"},
		{"[\"a\x01\"]", "$[0]", "unescaped control character U+0001"},
		{"\xef\xbb\xbf[]", "$", "unexpected character U+FEFF"},
		{`[tru]`, "$[0]", "unexpected character 't'"},
		{``, "$", "unexpected end of body"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := decodeJSON(tc.in)
			if err == nil {
				t.Fatal("accepted")
			}
			fe := err.fieldError()
			if fe.Path != tc.path || !strings.Contains(fe.Rule, tc.rule) {
				t.Errorf("got %v, want %s: ...%s...", fe, tc.path, tc.rule)
			}
		})
	}
}

func TestDecodeJSONBounds(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name string
		in   string
		rule string // "" when accepted
	}{
		{"depth 32", deep(32), ""},
		{"depth 33", deep(33), "nesting deeper than 32"},
		{"100 members", "{" + strings.Repeat(`"a":1,`, 99) + `"b":1}`, ""},
		{"101 members", "{" + strings.Repeat(`"a":1,`, 100) + `"b":1}`, "more than 100 members"},
		{"number of 32", strings.Repeat("1", 32), ""},
		{"number of 33", strings.Repeat("1", 33), "number longer than 32"},
		{"65536 values", "[" + strings.Repeat("0,", 65534) + "0]", ""},
		{"65537 values", "[" + strings.Repeat("0,", 65535) + "0]", "more than 65536 JSON values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJSON(tc.in)
			switch {
			case tc.rule == "" && err != nil:
				t.Fatalf("refused: %v", err.fieldError())
			case tc.rule != "" && (err == nil || !strings.Contains(err.msg, tc.rule)):
				t.Fatalf("got %v, want %q", err, tc.rule)
			}
		})
	}
}

// TestDecodeJSONSharesSource checks that strings without escapes are not
// copied: decoding a body is a handful of allocations whatever its size.
func TestDecodeJSONSharesSource(t *testing.T) {
	src := `{"a":"` + strings.Repeat("x", 1000) + `","b":["c","d"]}`
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := decodeJSON(src); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 8 {
		t.Errorf("decodeJSON made %v allocations, want at most 8", allocs)
	}
}
