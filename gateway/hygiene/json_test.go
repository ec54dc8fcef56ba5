package hygiene

import (
	"errors"
	"strings"
	"testing"
)

// paymentBody is a typical SEPA credit transfer request of about 1 KiB.
const paymentBody = `{
  "endToEndIdentification": "E2E-2026-11-21-000123",
  "debtorAccount": {"iban": "NO7809232911044", "currency": "NOK"},
  "instructedAmount": {"currency": "EUR", "amount": "1234.56"},
  "creditorAccount": {"iban": "DE89370400440532013000", "currency": "EUR"},
  "creditorAgent": "COBADEFFXXX",
  "creditorName": "Müller Maschinenbau GmbH",
  "creditorAddress": {
    "streetName": "Hauptstraße",
    "buildingNumber": "12",
    "townName": "Frankfurt am Main",
    "postCode": "60311",
    "country": "DE"
  },
  "ultimateCreditor": "Müller Maschinenbau GmbH Werk Süd",
  "ultimateDebtor": "Øyvind Ærø Holding AS",
  "remittanceInformationUnstructured": "Faktura 2026-4711 / ordre 99812, takk for handelen",
  "remittanceInformationStructured": {"reference": "RF18539007547034", "referenceType": "SCOR"},
  "requestedExecutionDate": "2026-11-23",
  "chargeBearer": "SLEV",
  "purposeCode": "GDDS",
  "batchBookingPreferred": false,
  "paymentIds": ["enc!!aGVsbG8td29ybGQtMDAx", "enc!!aGVsbG8td29ybGQtMDAy", "enc!!aGVsbG8td29ybGQtMDAz"],
  "debtorName": "Øyvind Ærø",
  "exchangeRate": 11.4235,
  "priority": 1,
  "note": null
}`

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// manyKeys returns an object with n distinct members k0..k(n-1) followed by
// extra, which is inserted verbatim before the closing brace.
func manyKeys(n int, extra string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"k`)
		sb.WriteString(strings.Repeat("x", i))
		sb.WriteString(`":1`)
	}
	sb.WriteString(extra)
	sb.WriteByte('}')
	return sb.String()
}

func TestCheckJSONValid(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"payment body", paymentBody},
		{"empty object", `{}`},
		{"empty array", `[]`},
		{"whitespace around", " \t\r\n{ \"a\" : [ 1 , 2 , { \"b\" : null } ] }\n "},
		{"top-level string", `"x"`},
		{"top-level number", `-0.5e+3`},
		{"top-level true", `true`},
		{"top-level false", `false`},
		{"top-level null", `null`},
		{"negative zero", `-0`},
		{"exponent forms", `[1e5,1E-5,0.0,10,-1.25e+10]`},
		{"32 digits", `12345678901234567890123456789012`},
		{"big exponent is only bounded in length", `1e400`},
		{"BMP non-ASCII raw", `{"name":"Øyvind Ærø 日本 €"}`},
		{"BMP non-ASCII escaped", `{"name":"\u00d8yvind \u00c6r\u00f8 \u65e5"}`},
		{"allowed escapes", `{"a":"\"\\\/"}`},
		{"U+FEFF inside a string raw", "{\"a\":\"x\ufeffy\"}"},
		{"U+FEFF inside a string escaped", `{"a":"x\ufeffy"}`},
		{"U+FFFD raw", "{\"a\":\"\ufffd\"}"},
		{"U+2029 and U+200F are not listed", "{\"a\":\"\u2029\u200f\u2065\u206a\"}"},
		{"U+00A0 after C1", "{\"a\":\"\u00a0\"}"},
		{"same name in sibling objects", `[{"a":1},{"a":1}]`},
		{"same name in parent and child", `{"a":{"a":1}}`},
		{"names differing in case", `{"a":1,"A":2}`},
		{"names prefix of each other", `{"a":1,"ab":2,"abc":3}`},
		{"escaped name differs", `{"a":1,"\u0062":2}`},
		{"depth 32 arrays", nested("[", "]", 32)},
		{"depth 32 objects", strings.Repeat(`{"a":`, 31) + `{}` + strings.Repeat("}", 31)},
		{"16 members", manyKeys(16, "")},
		{"17 members", manyKeys(17, "")},
		{"100 members", manyKeys(100, "")},
		{"string of 4096 bytes", `"` + strings.Repeat("a", 4096) + `"`},
		{"escaped string of 4096 decoded bytes", `"` + strings.Repeat(`\u00e6`, 2048) + `"`},
		{"name of 4096 bytes", `{"` + strings.Repeat("a", 4096) + `":1}`},
		{"two sibling large objects", `[` + manyKeys(20, "") + `,` + manyKeys(20, "") + `]`},
		{"large object inside large object", manyKeys(20, `,"inner":`+manyKeys(20, "")+`,"after":1`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckJSON([]byte(tt.body), DefaultJSONLimits); err != nil {
				t.Fatalf("CheckJSON() = %v, want nil", err)
			}
		})
	}
}

func TestCheckJSONInvalid(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		lim      JSONLimits
		wantPath string
		wantText string
	}{
		// syntax
		{name: "empty body", body: ``, wantPath: "$", wantText: "empty"},
		{name: "blank body", body: " \n\t", wantPath: "$", wantText: "empty"},
		{name: "byte order mark", body: "\ufeff{}", wantPath: "$", wantText: "byte order mark"},
		{name: "trailing comma in array", body: `[1,]`, wantPath: "$[1]", wantText: "expected a value"},
		{name: "trailing comma in object", body: `{"a":1,}`, wantPath: "$", wantText: "expected a member name"},
		{name: "missing comma", body: `{"a":1 "b":2}`, wantPath: "$", wantText: "expected ',' or '}'"},
		{name: "missing colon", body: `{"a" 1}`, wantPath: "$.a", wantText: "expected ':'"},
		{name: "unquoted name", body: `{a:1}`, wantPath: "$", wantText: "member name in double quotes"},
		{name: "single quotes", body: `{'a':1}`, wantPath: "$", wantText: "member name in double quotes"},
		{name: "two values", body: `{} {}`, wantPath: "$", wantText: "after the JSON value"},
		{name: "garbage after value", body: `{"a":1}x`, wantPath: "$", wantText: "after the JSON value"},
		{name: "unterminated string", body: `{"a":"abc`, wantPath: "$.a", wantText: "ends inside a string"},
		{name: "unterminated name", body: `{"abc`, wantPath: "$['abc...']", wantText: "ends inside a member name"},
		{name: "unclosed object", body: `{"a":1`, wantPath: "$", wantText: "ends inside an object"},
		{name: "unclosed array", body: `[1,2`, wantPath: "$", wantText: "ends inside an array"},
		{name: "missing value", body: `{"a":}`, wantPath: "$.a", wantText: "expected a value"},
		{name: "bad literal", body: `[tru]`, wantPath: "$[0]", wantText: "expected a value"},
		{name: "NaN", body: `NaN`, wantPath: "$", wantText: "expected a value"},
		{name: "Infinity", body: `[Infinity]`, wantPath: "$[0]", wantText: "expected a value"},
		{name: "invalid escape", body: `{"a":"\x41"}`, wantPath: "$.a", wantText: "invalid escape"},
		{name: "invalid u escape", body: `{"a":"\u12G4"}`, wantPath: "$.a", wantText: `invalid \u escape`},
		{name: "short u escape at end", body: `"\u12"`, wantPath: "$", wantText: `invalid \u escape`},
		// numbers
		{name: "leading zero", body: `[01]`, wantPath: "$[0]", wantText: "leading zero"},
		{name: "negative leading zero", body: `{"n":-01}`, wantPath: "$.n", wantText: "leading zero"},
		{name: "double zero", body: `00`, wantPath: "$", wantText: "leading zero"},
		{name: "plus sign", body: `[+1]`, wantPath: "$[0]", wantText: "expected a value"},
		{name: "lone minus", body: `[-]`, wantPath: "$[0]", wantText: "invalid number"},
		{name: "trailing dot", body: `[1.]`, wantPath: "$[0]", wantText: "decimal point"},
		{name: "leading dot", body: `[.5]`, wantPath: "$[0]", wantText: "expected a value"},
		{name: "empty exponent", body: `[1e]`, wantPath: "$[0]", wantText: "exponent"},
		{name: "signed empty exponent", body: `[1e+]`, wantPath: "$[0]", wantText: "exponent"},
		{name: "hex number", body: `[0x10]`, wantPath: "$", wantText: "expected ',' or ']'"},
		{name: "huge number", body: `{"amount":` + strings.Repeat("9", 33) + `}`, wantPath: "$.amount", wantText: "longer than 32 characters"},
		{name: "huge number with fraction", body: `[1.` + strings.Repeat("0", 40) + `]`, wantPath: "$[0]", wantText: "longer than 32"},
		// forbidden characters
		{name: "emoji raw", body: "{\"a\":\"hi \U0001F600\"}", wantPath: "$.a", wantText: "U+1F600"},
		{name: "emoji escaped as surrogate pair", body: `{"a":"hi \uD83D\uDE00"}`, wantPath: "$.a", wantText: "outside the Basic Multilingual Plane (such as an emoji) U+1F600"},
		{name: "emoji pair lower-case hex", body: `{"a":"\ud83d\ude00"}`, wantPath: "$.a", wantText: "U+1F600"},
		{name: "lone high surrogate", body: `{"a":"\uD83D"}`, wantPath: "$.a", wantText: "unpaired surrogate U+D83D"},
		{name: "lone high surrogate then text", body: `{"a":"\uD83Dabcdefgh"}`, wantPath: "$.a", wantText: "unpaired surrogate U+D83D"},
		{name: "high surrogate then non-surrogate escape", body: `{"a":"\uD83D\u0041"}`, wantPath: "$.a", wantText: "unpaired surrogate U+D83D"},
		{name: "two high surrogates", body: `{"a":"\uD83D\uD83D"}`, wantPath: "$.a", wantText: "unpaired surrogate U+D83D"},
		{name: "lone low surrogate", body: `{"a":"\uDE00x"}`, wantPath: "$.a", wantText: "unpaired surrogate U+DE00"},
		{name: "U+202E raw", body: "{\"a\":\"abc\u202edef\"}", wantPath: "$.a", wantText: "bidirectional control character U+202E"},
		{name: "U+202E escaped", body: `{"a":"abc\u202Edef"}`, wantPath: "$.a", wantText: "bidirectional control character U+202E"},
		{name: "U+202A raw", body: "[\"\u202a\"]", wantPath: "$[0]", wantText: "U+202A"},
		{name: "U+2066 raw", body: "[\"\u2066\"]", wantPath: "$[0]", wantText: "U+2066"},
		{name: "U+2069 escaped", body: `["\u2069"]`, wantPath: "$[0]", wantText: "U+2069"},
		{name: "NUL raw", body: "{\"a\":\"x\x00\"}", wantPath: "$.a", wantText: "control character U+0000"},
		{name: "NUL escaped", body: `{"a":"x\u0000"}`, wantPath: "$.a", wantText: "escaped control character U+0000"},
		{name: "newline escaped", body: `{"a":"line1\nline2"}`, wantPath: "$.a", wantText: "escaped control character U+000A"},
		{name: "tab escaped", body: `{"a":"\t"}`, wantPath: "$.a", wantText: "U+0009"},
		{name: "raw tab in string", body: "{\"a\":\"x\ty\"}", wantPath: "$.a", wantText: "control character U+0009"},
		{name: "raw newline in string", body: "{\"a\":\"x\ny\"}", wantPath: "$.a", wantText: "control character U+000A"},
		{name: "DEL raw", body: "{\"a\":\"x\x7f\"}", wantPath: "$.a", wantText: "control character U+007F"},
		{name: "DEL escaped", body: `{"a":"\u007F"}`, wantPath: "$.a", wantText: "control character U+007F"},
		{name: "C1 raw", body: "{\"a\":\"\u0085\"}", wantPath: "$.a", wantText: "C1 control character U+0085"},
		{name: "C1 escaped", body: `{"a":"\u009f"}`, wantPath: "$.a", wantText: "C1 control character U+009F"},
		{name: "U+FFFE raw", body: "{\"a\":\"\ufffe\"}", wantPath: "$.a", wantText: "noncharacter U+FFFE"},
		{name: "U+FFFF escaped", body: `{"a":"\uFFFF"}`, wantPath: "$.a", wantText: "noncharacter U+FFFF"},
		// invalid UTF-8
		{name: "overlong two bytes", body: "{\"a\":\"\xc0\xaf\"}", wantPath: "$.a", wantText: "invalid UTF-8 at byte 6"},
		{name: "overlong three bytes", body: "{\"a\":\"\xe0\x80\xaf\"}", wantPath: "$.a", wantText: "invalid UTF-8"},
		{name: "truncated sequence", body: "{\"a\":\"\xe2\x82\"}", wantPath: "$.a", wantText: "invalid UTF-8"},
		{name: "truncated at end of body", body: "\"\xe2\x82", wantPath: "$", wantText: "invalid UTF-8"},
		{name: "lone continuation byte", body: "{\"a\":\"\x80\"}", wantPath: "$.a", wantText: "invalid UTF-8"},
		{name: "encoded surrogate", body: "{\"a\":\"\xed\xa0\x80\"}", wantPath: "$.a", wantText: "invalid UTF-8"},
		{name: "beyond U+10FFFF", body: "{\"a\":\"\xf4\x90\x80\x80\"}", wantPath: "$.a", wantText: "invalid UTF-8"},
		{name: "byte F5", body: "[\"\xf5\"]", wantPath: "$[0]", wantText: "invalid UTF-8"},
		{name: "Latin-1 byte", body: "{\"navn\":\"\xd8yvind\"}", wantPath: "$.navn", wantText: "invalid UTF-8"},
		{name: "invalid UTF-8 outside strings", body: "[1,\xc3\xa6]", wantPath: "$[1]", wantText: "expected a value"},
		// forbidden characters in member names
		{name: "bidi in name", body: "{\"x\":{\"ab\u202ecd\":1}}", wantPath: "$.x['ab...']", wantText: "member name contains a bidirectional control character U+202E"},
		{name: "escaped emoji in name", body: `{"\uD83D\uDE00":1}`, wantPath: "$['...']", wantText: "member name contains an escaped character outside"},
		{name: "NUL in name", body: `{"a\u0000":1}`, wantPath: "$['a...']", wantText: "member name contains an escaped control character U+0000"},
		// duplicates
		{name: "duplicate name", body: `{"a":1,"a":2}`, wantPath: "$.a", wantText: "duplicate member name"},
		{name: "duplicate after unescaping", body: `{"a":1,"\u0061":2}`, wantPath: "$.a", wantText: "duplicate"},
		{name: "duplicate escaped first", body: `{"\u0061":1,"a":2}`, wantPath: "$.a", wantText: "duplicate"},
		{name: "duplicate both escaped differently", body: `{"\u00e6":1,"\u00E6":2}`, wantPath: "$['\\u00E6']", wantText: "duplicate"},
		{name: "duplicate raw vs escaped non-ASCII", body: "{\"\u00e6x\":1,\"\\u00e6x\":2}", wantPath: "$['\\u00E6x']", wantText: "duplicate"},
		{name: "duplicate with escaped slash", body: `{"a/b":1,"a\/b":2}`, wantPath: "$['a/b']", wantText: "duplicate"},
		{name: "duplicate not adjacent", body: `{"a":1,"b":2,"c":3,"b":4}`, wantPath: "$.b", wantText: "duplicate"},
		{name: "duplicate nested", body: `{"x":[{"k":1},{"k":1,"k":2}]}`, wantPath: "$.x[1].k", wantText: "duplicate"},
		{name: "duplicate in large object", body: manyKeys(40, `,"kxxxxx":2`), wantPath: "$.kxxxxx", wantText: "duplicate"},
		{name: "escaped duplicate in large object", body: manyKeys(40, `,"\u006bxxx":2`), wantPath: "$.kxxx", wantText: "duplicate"},
		{name: "duplicate of escaped name in large object", body: `{"\u006bxxx":0,` + manyKeys(40, "")[1:len(manyKeys(40, ""))-1] + `}`, wantPath: "$.kxxx", wantText: "duplicate"},
		{name: "duplicate at member 9", body: manyKeys(8, `,"k":2`), wantPath: "$.k", wantText: "duplicate"},
		{name: "duplicate at member 17", body: manyKeys(16, `,"k":2`), wantPath: "$.k", wantText: "duplicate"},
		{name: "duplicate beyond the inline table", body: manyKeys(250, `,"kxxx":2`), lim: raisedKeys, wantPath: "$.kxxx", wantText: "duplicate"},
		{name: "escaped duplicate beyond the inline table", body: manyKeys(250, `,"\u006bxxx":2`), lim: raisedKeys, wantPath: "$.kxxx", wantText: "duplicate"},
		{name: "duplicate in large object inside large object", body: manyKeys(20, `,"inner":`+manyKeys(20, `,"kx":2`)), wantPath: "$.inner.kx", wantText: "duplicate"},
		{name: "duplicate in outer large object after inner one", body: manyKeys(20, `,"inner":`+manyKeys(20, "")+`,"kxxxx":2`), wantPath: "$.kxxxx", wantText: "duplicate"},
		{name: "duplicate in second large sibling", body: `[` + manyKeys(20, "") + `,` + manyKeys(20, `,"kxx":2`) + `]`, wantPath: "$[1].kxx", wantText: "duplicate"},
		// bounds
		{name: "depth 33 arrays", body: nested("[", "]", 33), wantPath: "$" + strings.Repeat("[0]", 32), wantText: "nesting deeper than 32 levels"},
		{name: "depth 33 objects", body: strings.Repeat(`{"a":`, 32) + `{}` + strings.Repeat("}", 32), wantPath: "$" + strings.Repeat(".a", 32), wantText: "nesting deeper than 32"},
		{name: "custom depth", body: `[[1]]`, lim: JSONLimits{MaxDepth: 1}, wantPath: "$[0]", wantText: "nesting deeper than 1 levels"},
		{name: "string too long", body: `{"a":"` + strings.Repeat("a", 4097) + `"}`, wantPath: "$.a", wantText: "longer than 4096 bytes"},
		{name: "escaped string too long", body: `["` + strings.Repeat(`\u00e6`, 2048) + `x"]`, wantPath: "$[0]", wantText: "longer than 4096 bytes"},
		{name: "name too long", body: `{"` + strings.Repeat("a", 4097) + `":1}`, wantPath: "$['" + strings.Repeat("a", 64) + "...']", wantText: "member name at byte 1 is longer than 4096"},
		{name: "too many members", body: manyKeys(4, ""), lim: JSONLimits{MaxKeys: 3}, wantPath: "$", wantText: "more than 3 members"},
		{name: "101 members", body: manyKeys(101, ""), wantPath: "$", wantText: "object has more than 100 members"},
		{name: "101 members nested", body: `{"a":[` + manyKeys(101, "") + `]}`, wantPath: "$.a[0]", wantText: "object has more than 100 members"},
		{name: "65537 values", body: "[" + strings.Repeat("0,", 65535) + "0]", wantPath: "$[65535]", wantText: "body has more than 65536 JSON values"},
		{name: "custom string limit", body: `["abcd"]`, lim: JSONLimits{MaxStringBytes: 3}, wantPath: "$[0]", wantText: "longer than 3 bytes"},
		{name: "custom number limit", body: `[1234]`, lim: JSONLimits{MaxNumberBytes: 3}, wantPath: "$[0]", wantText: "longer than 3 characters"},
		// path rendering
		{name: "nested path", body: `{"debtorAccount":{"iban":"NO\u202e1"}}`, wantPath: "$.debtorAccount.iban", wantText: "U+202E"},
		{name: "array index path", body: `{"paymentIds":["a","b","c","\uD83D\uDE00"]}`, wantPath: "$.paymentIds[3]", wantText: "U+1F600"},
		{name: "name with space", body: `{"a b":{"c":"\u0000"}}`, wantPath: "$['a b'].c", wantText: "U+0000"},
		{name: "name with quote and backslash", body: `{"it's\\":[0,01]}`, wantPath: `$['it\'s\\'][1]`, wantText: "leading zero"},
		{name: "name starting with a digit", body: `{"1a":"\u0001"}`, wantPath: "$['1a']", wantText: "U+0001"},
		{name: "non-ASCII name is escaped in the path", body: "{\"bel\u00f8p\":\"\u0085\"}", wantPath: `$['bel\u00F8p']`, wantText: "U+0085"},
		{name: "underscore name", body: `{"_links":{"self":{"href":"\u200e\u202d"}}}`, wantPath: "$._links.self.href", wantText: "U+202D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckJSON([]byte(tt.body), tt.lim)
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("CheckJSON() = %v, want *Error", err)
			}
			if he.Path != tt.wantPath {
				t.Errorf("Path = %q, want %q (text %q)", he.Path, tt.wantPath, he.Text)
			}
			if !strings.Contains(he.Text, tt.wantText) {
				t.Errorf("Text = %q, want it to contain %q", he.Text, tt.wantText)
			}
			if len(he.Text) >= 200 {
				t.Errorf("Text is %d characters, want < 200", len(he.Text))
			}
		})
	}
}

// raisedKeys lets objects hold more members than the contract's 100, to
// test duplicate detection in objects past the inline table.
var raisedKeys = JSONLimits{MaxKeys: 1000}

// TestCheckJSONLargeObjects checks objects past the inline name table,
// under a raised member bound.
func TestCheckJSONLargeObjects(t *testing.T) {
	for _, n := range []int{300, 1000} {
		if err := CheckJSON([]byte(manyKeys(n, "")), raisedKeys); err != nil {
			t.Errorf("%d members: CheckJSON() = %v, want nil", n, err)
		}
	}
}

func TestCheckJSONDefaultsForZeroLimits(t *testing.T) {
	body := []byte(nested("[", "]", 33))
	if CheckJSON(body, JSONLimits{}) == nil {
		t.Fatal("JSONLimits{} accepted depth 33; zero fields must mean the defaults")
	}
	if err := CheckJSON(body, JSONLimits{MaxDepth: 40}); err != nil {
		t.Fatalf("MaxDepth 40 rejected depth 33: %v", err)
	}
	deep := []byte(nested("[", "]", MaxJSONDepth+1))
	if CheckJSON(deep, JSONLimits{MaxDepth: 1 << 30}) == nil {
		t.Fatalf("depth %d accepted; MaxDepth must be capped at MaxJSONDepth", MaxJSONDepth+1)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Path: "$.a", Text: "bad"}, "$.a: bad"},
		{Error{Path: "PSU-ID", Text: "not a UUID"}, "PSU-ID: not a UUID"},
		{Error{Text: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestCheckJSONAllocations(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		lim       JSONLimits
		maxAllocs float64
	}{
		{"payment", paymentBody, DefaultJSONLimits, 0},
		{"object of 100 members", manyKeys(100, ""), DefaultJSONLimits, 0},
		{"array of large objects", "[" + strings.Repeat(manyKeys(30, "")+",", 20) + "{}]", DefaultJSONLimits, 0},
		{"depth 32", nested("[", "]", 32), DefaultJSONLimits, 0},
		{"object of 300 members", manyKeys(300, ""), raisedKeys, 16}, // map and overflow names
	}
	for _, tt := range tests {
		b := []byte(tt.body)
		allocs := testing.AllocsPerRun(100, func() {
			if err := CheckJSON(b, tt.lim); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > tt.maxAllocs {
			t.Errorf("%s: %v allocations per CheckJSON, want <= %v", tt.name, allocs, tt.maxAllocs)
		}
	}
}

func BenchmarkCheckJSON(b *testing.B) {
	body := []byte(paymentBody)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckJSON(body, DefaultJSONLimits); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckJSONLargeObject(b *testing.B) {
	body := []byte(manyKeys(200, ""))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckJSON(body, raisedKeys); err != nil {
			b.Fatal(err)
		}
	}
}
