package strictjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// toAny converts a decoded node to what encoding/json decodes with
// UseNumber, for comparison (the last of duplicate members wins, as
// there).
func (t *tree) toAny(i int32) any {
	n := &t.nodes[i]
	switch n.Kind {
	case KindNull:
		return nil
	case KindBool:
		return n.Bool
	case KindNumber:
		return json.Number(n.Text)
	case KindString:
		return n.Text
	case KindArray:
		out := []any{}
		for _, e := range t.elements(n) {
			out = append(out, t.toAny(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range t.objectMembers(n) {
		out[m.Key] = t.toAny(m.Value)
	}
	return out
}

// boundErrors are the decoder's own limits, which encoding/json lacks.
var boundErrors = []string{"nesting deeper than", "more than 100 members", "JSON values", "number longer than", "string longer than"}

// cleanText reports whether s holds no character runeProblem refuses.
func cleanText(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if runeProblem(r, size) != "" {
			return false
		}
		i += size
	}
	return true
}

// compareWithEncodingJSON checks decodeJSON against encoding/json: the
// same documents accepted (but for the decoder's bounds and, with
// RefuseCharacters, refused characters), decoding to the same values;
// with RefuseCharacters only clean strings, with FlagCharacters a string
// marked Replaced exactly when it holds U+FFFD that the body did not.
func compareWithEncodingJSON(t *testing.T, b []byte, chars Characters) {
	tr, err := decodeJSON(string(b), chars)
	valid := json.Valid(b)
	if err != nil {
		if err.char {
			if chars != RefuseCharacters {
				t.Fatalf("decodeJSON refused a character of %q with FlagCharacters: %v", b, err.fieldError())
			}
			return
		}
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
	if chars == RefuseCharacters {
		for _, n := range tr.nodes {
			if n.Kind == KindString && (!cleanText(n.Text) || n.Replaced) {
				t.Fatalf("decodeJSON kept a refused character in %q", n.Text)
			}
		}
		for _, m := range tr.members {
			if !cleanText(m.Key) || m.KeyReplaced {
				t.Fatalf("decodeJSON kept a refused character in member name %q", m.Key)
			}
		}
	}
	for _, n := range tr.nodes {
		if n.Replaced && !strings.ContainsRune(n.Text, utf8.RuneError) || !utf8.ValidString(n.Text) {
			t.Fatalf("decodeJSON marked %q replaced without U+FFFD, or kept invalid UTF-8", n.Text)
		}
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

// bothModes runs compareWithEncodingJSON with each Characters.
func bothModes(t *testing.T, b []byte) {
	t.Helper()
	compareWithEncodingJSON(t, b, FlagCharacters)
	compareWithEncodingJSON(t, b, RefuseCharacters)
}

func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`null`, `true`, `false`, `0`, `-0`, `-12.5e+3`, `1E-2`, `""`, `"abc"`, `[]`, `{}`, ` [ 1 , 2 ] `,
		`{"a":{"b":[1,{"c":null}]},"d":"e"}`, `{"a":1,"a":2}`, `{"a":[1,-0.5e+3,true,false,null,"x"]}`, ` {"a" : { "b" : [ ] } } `,
		`"\u00e6\u00F8"`, `"\u00e6\u00F8\u00e5"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`,
		`"\"\\\/\b\f\n\r\t"`, `"a\"\\\/\b\f\n\r\tb"`, "\"\xff\xfe\"", "\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}",
		`"æøå"`, `"a\u0085"`, `"a` + "\u202e" + `"`, "\"a\x7fb\"", `"a\u007fb"`,
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `0x10`, `NaN`, `tru`, `nul`, `"abc`, `"\x"`, `"\u12"`, `"\u12g4"`,
		"\"a\tb\"", "\"a\x01\"", `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `[] x`, ``, ` `,
		"\ufeff[]", "\xef\xbb\xbf{}", `{"a":[}`, `[`, `{`, `{"`, `"\`, `"\ud800\u12"`, `"\ud800\`,
		strings.Repeat("[", 32) + strings.Repeat("]", 32), strings.Repeat("[", 33) + strings.Repeat("]", 33),
	}
	for _, d := range docs {
		t.Run(d, func(t *testing.T) { bothModes(t, []byte(d)) })
	}
}

// TestDecodeJSONReplaced checks what FlagCharacters marks: invalid UTF-8
// and lone surrogates in strings and member names, and nothing else.
func TestDecodeJSONReplaced(t *testing.T) {
	tests := []struct {
		in       string
		text     string
		replaced bool
	}{
		{`"abc"`, "abc", false},
		{`"\ufffd"`, "\ufffd", false},
		{`"a\u202eb"`, "a\u202eb", false},
		{`"\n"`, "\n", false},
		{`"\ud800"`, "\ufffd", true},
		{`"\ud800\u0041"`, "\ufffdA", true},
		{`"\udc00\ud800"`, "\ufffd\ufffd", true},
		{`"\ud83d\ude00"`, "\U0001F600", false},
		{"\"a\xc3\"", "a\ufffd", true},
		{"\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd", true},
		{"\"\xff\\n\"", "\ufffd\n", true},
	}
	for _, tc := range tests {
		tr, err := decodeJSON(tc.in, FlagCharacters)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err.fieldError())
			continue
		}
		if n := tr.nodes[root]; n.Text != tc.text || n.Replaced != tc.replaced {
			t.Errorf("%q: got %q replaced %v, want %q replaced %v", tc.in, n.Text, n.Replaced, tc.text, tc.replaced)
		}
	}
	tr, err := decodeJSON("{\"a\xff\":1,\"b\":2}", FlagCharacters)
	if err != nil || !tr.members[0].KeyReplaced || tr.members[1].KeyReplaced {
		t.Errorf("member names: %v %+v", err, tr)
	}
}

func TestDecodeJSONCharacters(t *testing.T) {
	for _, tc := range []struct{ body, path, rule string }{
		{`"\n"`, "$", "control character U+000A"},
		{"\"\x7f\"", "$", "control character U+007F"},
		{"\"a\\n\x7f\"", "$", "control character U+000A"},
		{"\"\\\"\x7f\"", "$", "control character U+007F"},
		{`"\u007f"`, "$", "control character U+007F"},
		{`"\u0085"`, "$", "C1 control character U+0085"},
		{`"\u2066"`, "$", "bidirectional control character U+2066"},
		{`"\uffff"`, "$", "noncharacter U+FFFF"},
		{`"\ud83d\ude00"`, "$", "outside the Basic Multilingual Plane"},
		{"\"\xf0\x9f\x98\x80\"", "$", "outside the Basic Multilingual Plane"},
		{`"\ud800"`, "$", "lone surrogate"},
		{`"\ud800\u12"`, "$", "lone surrogate"},
		{`"\ude00\ud83d"`, "$", "lone surrogate"},
		{"\"\xc3\"", "$", "not valid UTF-8"},
		{"\"\\n\xc3\"", "$", "control character U+000A"},
		{"\"\\t\"", "$", "control character U+0009"},
		{"\"\xed\xa0\x80\"", "$", "not valid UTF-8"}, // an encoded surrogate
		{`{"k\t":1}`, "$", "member name that holds control character U+0009"},
		{`{"a":[1,{"b":"x\u202ey"}]}`, "$.a[1].b", "bidirectional control character U+202E"},
	} {
		_, err := decodeJSON(tc.body, RefuseCharacters)
		if err == nil || !err.char {
			t.Errorf("%q: got %v, want a refused character", tc.body, err)
			continue
		}
		if fe := err.fieldError(); fe.Path != tc.path || !strings.Contains(fe.Rule, tc.rule) || strings.Contains(fe.Rule, "invalid JSON") {
			t.Errorf("%q: got %v, want %s: ...%s...", tc.body, fe, tc.path, tc.rule)
		}
		if _, err := decodeJSON(tc.body, FlagCharacters); err != nil && json.Valid([]byte(tc.body)) {
			t.Errorf("%q refused with FlagCharacters: %v", tc.body, err.fieldError())
		}
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
		{strings.Repeat(`{"abcdefghij":`, 30) + "x", "$" + strings.Repeat(".abcdefghij", 24) + "...", "unexpected character 'x'"},
	}
	for _, tc := range tests {
		for _, chars := range []Characters{FlagCharacters, RefuseCharacters} {
			t.Run(tc.in, func(t *testing.T) {
				_, err := decodeJSON(tc.in, chars)
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
		{"object depth 33", strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33), "nesting deeper than 32"},
		{"100 members", "{" + strings.Repeat(`"a":1,`, 99) + `"b":1}`, ""},
		{"101 members", "{" + strings.Repeat(`"a":1,`, 100) + `"b":1}`, "more than 100 members"},
		{"number of 32", strings.Repeat("1", 32), ""},
		{"number of 33", strings.Repeat("1", 33), "number longer than 32"},
		{"string of 4096 bytes", `"` + strings.Repeat("a", 4096) + `"`, ""},
		{"string of 4097 bytes", `"` + strings.Repeat("a", 4097) + `"`, "string longer than 4096 bytes"},
		{"escaped string of 4097 bytes", `"` + strings.Repeat(`\u00e6`, 2048) + `x"`, "string longer than 4096 bytes"},
		{"member name of 4097 bytes", `{"` + strings.Repeat("a", 4097) + `":1}`, "string longer than 4096 bytes"},
		{"65536 values", "[" + strings.Repeat("0,", 65534) + "0]", ""},
		{"65537 values", "[" + strings.Repeat("0,", 65535) + "0]", "more than 65536 JSON values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJSON(tc.in, RefuseCharacters)
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
	src := `{"a":"` + strings.Repeat("x", 1000) + `","b":["c","d"],"æ":"ø"}`
	for _, chars := range []Characters{FlagCharacters, RefuseCharacters} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := decodeJSON(src, chars); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 8 {
			t.Errorf("decodeJSON(%d) made %v allocations, want at most 8", chars, allocs)
		}
	}
}

// TestCheckerReuse checks that a reused Checker decodes without allocating
// and drops the errors of the previous body.
func TestCheckerReuse(t *testing.T) {
	var c Checker
	src := `{"a":"x","b":[1,2]}`
	if errs := c.Decode(src, RefuseCharacters); errs != nil {
		t.Fatal(errs)
	}
	c.Add("$", "rule")
	c.Reset()
	if c.Errors() != nil {
		t.Fatalf("errors kept across Reset: %v", c.Errors())
	}
	c.Add("$", "rule")
	if errs := c.Decode(src, RefuseCharacters); errs != nil || c.Errors() != nil || c.Full() {
		t.Fatalf("errors kept across Decode: %v %v", errs, c.Errors())
	}
	allocs := testing.AllocsPerRun(100, func() {
		if errs := c.Decode(src, RefuseCharacters); errs != nil {
			t.Fatal(errs)
		}
	})
	if allocs != 0 || c.Capacity() == 0 {
		t.Errorf("reused Checker made %v allocations (capacity %d), want 0", allocs, c.Capacity())
	}
}

func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		bothModes(t, body)
		// The two modes differ only in the refused characters: a body
		// RefuseCharacters accepts decodes alike with FlagCharacters.
		strict, err := decodeJSON(string(body), RefuseCharacters)
		if err != nil {
			return
		}
		flagged, err2 := decodeJSON(string(body), FlagCharacters)
		if err2 != nil || !reflect.DeepEqual(strict.nodes, flagged.nodes) || !reflect.DeepEqual(strict.members, flagged.members) {
			t.Fatalf("modes disagree on %q", body)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	body := `{"instructedAmount":{"currency":"NOK","amount":"123.45"},"debtorAccount":{"bban":"86011117947"},` +
		`"creditorAccount":{"iban":"NO2912031010010"},"creditorName":"Ola Nordmann","requestedExecutionDate":"2026-11-23",` +
		`"remittanceInformationStructuredArray":[{"reference":"79927398713","referenceType":"SCOR"}]}`
	for _, chars := range []Characters{FlagCharacters, RefuseCharacters} {
		name := map[Characters]string{FlagCharacters: "flag", RefuseCharacters: "refuse"}[chars]
		b.Run(name, func(b *testing.B) {
			var c Checker
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if errs := c.Decode(body, chars); errs != nil {
					b.Fatal(errs)
				}
			}
		})
	}
}
