package payments

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
// same documents accepted (but for the decoder's bounds and refused
// characters), decoding to the same values, with only clean strings.
func compareWithEncodingJSON(t *testing.T, b []byte) {
	tr, err := decodeJSON(string(b))
	valid := json.Valid(b)
	if err != nil {
		if err.char {
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
	for _, n := range tr.nodes {
		if n.kind == kindString && !cleanText(n.text) {
			t.Fatalf("decodeJSON kept a refused character in %q", n.text)
		}
	}
	for _, m := range tr.members {
		if !cleanText(m.key) {
			t.Fatalf("decodeJSON kept a refused character in member name %q", m.key)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if got := tr.toAny(root); !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %q as %#v, encoding/json as %#v", b, got, want)
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-0.5e+3,true,false,null,"x"]}`, ` {"a" : { "b" : [ ] } } `,
		`"a\"\\\/\b\f\n\r\tb"`, `"\u00e6\u00F8"`, `"\ud83d\ude00"`, `"æøå"`, `"a\u0085"`,
		`{"a":1,}`, `[1,]`, `{"a"}`, `01`, `1.`, `-`, `"\x"`, `"\u12"`, `"abc`, "\"a\x01\"", `nul`, "\xef\xbb\xbf{}",
		`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\"", "\"\xed\xa0\x80\"", `"a` + "\u202e" + `"`,
		strings.Repeat("[", 32) + strings.Repeat("]", 32), strings.Repeat("[", 33) + strings.Repeat("]", 33),
	} {
		t.Run(s, func(t *testing.T) { compareWithEncodingJSON(t, []byte(s)) })
	}
}

func TestDecodeJSONCharacters(t *testing.T) {
	for _, tc := range []struct{ body, rule string }{
		{`"\n"`, "control character U+000A"},
		{"\"\x7f\"", "control character U+007F"},
		{`"\u007f"`, "control character U+007F"},
		{`"\u0085"`, "C1 control character U+0085"},
		{`"\u2066"`, "bidirectional control character U+2066"},
		{`"\uffff"`, "noncharacter U+FFFF"},
		{`"\ud83d\ude00"`, "outside the Basic Multilingual Plane"},
		{"\"\xf0\x9f\x98\x80\"", "outside the Basic Multilingual Plane"},
		{`"\ud800"`, "lone surrogate"},
		{`"\ude00\ud83d"`, "lone surrogate"},
		{"\"\xc3\"", "not valid UTF-8"},
		{"\"\xed\xa0\x80\"", "not valid UTF-8"}, // an encoded surrogate
		{`{"k\t":1}`, "member name that holds control character U+0009"},
	} {
		_, err := decodeJSON(tc.body)
		if err == nil || !err.char || !strings.Contains(err.fieldError().Rule, tc.rule) {
			t.Errorf("%q: got %v, want %q", tc.body, err, tc.rule)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		compareWithEncodingJSON(t, body)
	})
}
