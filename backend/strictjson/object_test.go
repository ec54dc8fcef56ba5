package strictjson

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// result is what a getter returned.
type result struct {
	v  any
	ok bool
}

var testFields = &FieldSet{Names: []string{"a", "b", "c"}}

// getterCase decodes body, runs check on its root object of testFields
// and expects the value returned and the errors reported (paths and rule
// fragments).
type getterCase struct {
	name  string
	body  string
	chars Characters
	check func(o Object) result
	want  result
	errs  []FieldError
}

func runGetterCases(t *testing.T, cases []getterCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Checker
			if errs := c.Decode(tc.body, tc.chars); errs != nil {
				t.Fatalf("decode: %v", errs)
			}
			o, ok := c.RootObject(testFields)
			if !ok {
				t.Fatalf("root is not an object: %v", c.Errors())
			}
			if got := tc.check(o); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			checkErrs(t, c.Errors(), tc.errs)
		})
	}
}

// checkErrs asserts that got are want, in order, each rule containing the
// wanted fragment.
func checkErrs(t *testing.T, got, want []FieldError) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("errors %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Path != want[i].Path || !strings.Contains(got[i].Rule, want[i].Rule) {
			t.Errorf("error %d is %v, want %s: ...%s...", i, got[i], want[i].Path, want[i].Rule)
		}
	}
}

func text(required bool, max int) func(Object) result {
	return func(o Object) result { v, ok := o.Text("a", required, max); return result{v, ok} }
}

func fe(path, rule string) []FieldError { return []FieldError{{Path: path, Rule: rule}} }

func TestObjectText(t *testing.T) {
	isX := func(s string) bool { return s == "x" }
	runGetterCases(t, []getterCase{
		{name: "present", body: `{"a":"æøå"}`, check: text(true, 3), want: result{"æøå", true}},
		{name: "too long", body: `{"a":"abcd"}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "is longer than 3 characters")},
		{name: "required missing", body: `{}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "is required")},
		{name: "required null", body: `{"a":null}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "is required and must not be null")},
		{name: "optional missing", body: `{}`, check: text(false, 3), want: result{"", true}},
		{name: "optional null", body: `{"a":null}`, check: text(false, 3), want: result{"", true}},
		{name: "optional empty", body: `{"a":""}`, check: text(false, 3), want: result{"", true}},
		{name: "required blank", body: `{"a":"  "}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "must not be empty")},
		{name: "number", body: `{"a":1}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "must be a string, got number")},
		{name: "control flagged", body: `{"a":"x\ny"}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "control character U+000A")},
		{name: "invalid UTF-8 flagged", body: "{\"a\":\"x\xff\"}", check: text(true, 3), want: result{"", false}, errs: fe("$.a", "not valid UTF-8")},
		{name: "emoji flagged", body: `{"a":"\ud83d\ude00"}`, check: text(true, 3), want: result{"", false}, errs: fe("$.a", "outside the Basic Multilingual Plane")},
		{name: "clean with RefuseCharacters", body: `{"a":"xy"}`, chars: RefuseCharacters, check: text(true, 3), want: result{"xy", true}},
		{name: "code", body: `{"a":"x"}`, check: func(o Object) result { v, ok := o.Code("a", true, isX, "must be x"); return result{v, ok} },
			want: result{"x", true}},
		{name: "code broken", body: `{"a":"y"}`, check: func(o Object) result { v, ok := o.Code("a", true, isX, "must be x"); return result{v, ok} },
			want: result{"", false}, errs: fe("$.a", "must be x")},
		{name: "plain text with a bidi control", body: `{"a":"x\u202ey"}`,
			check: func(o Object) result { v, ok := o.PlainText("a", false); return result{v, ok} },
			want:  result{"", false}, errs: fe("$.a", "bidirectional control character U+202E")},
	})
}

func TestObjectBool(t *testing.T) {
	get := func(required, lenient bool) func(Object) result {
		return func(o Object) result { v, ok := o.Bool("a", required, lenient); return result{v, ok} }
	}
	runGetterCases(t, []getterCase{
		{name: "true", body: `{"a":true}`, check: get(true, false), want: result{true, true}},
		{name: "false", body: `{"a":false}`, check: get(true, false), want: result{false, true}},
		{name: "optional missing", body: `{}`, check: get(false, false), want: result{false, true}},
		{name: "required missing", body: `{}`, check: get(true, true), want: result{false, false}, errs: fe("$.a", "is required")},
		{name: "string strict", body: `{"a":"true"}`, check: get(false, false), want: result{false, false}, errs: fe("$.a", "must be a boolean, got string")},
		{name: "string lenient", body: `{"a":"true"}`, check: get(false, true), want: result{true, true}},
		{name: "false string lenient", body: `{"a":"false"}`, check: get(false, true), want: result{false, true}},
		{name: "other string lenient", body: `{"a":"TRUE"}`, check: get(false, true), want: result{false, false}, errs: fe("$.a", `must be true or false`)},
	})
}

func TestObjectMembers(t *testing.T) {
	sub := &FieldSet{Names: []string{"x"}}
	runGetterCases(t, []getterCase{
		{name: "unknown and duplicate", body: `{"a":1,"d":2,"a":3,"B":4}`, check: func(o Object) result { return result{len(o.Members()), o.Has("a")} },
			want: result{4, true},
			errs: []FieldError{{"$.d", "is not a known field of this object"}, {"$.a", "appears more than once"}, {"$.B", "did you mean b?"}}},
		{name: "first of duplicates wins", body: `{"a":"1","a":"2"}`, check: func(o Object) result { n, ok := o.Lookup("a"); return result{n.Text, ok} },
			want: result{"1", true}, errs: fe("$.a", "appears more than once")},
		{name: "invalid UTF-8 name matches nothing", body: "{\"a\xff\":1}", check: func(o Object) result { return result{nil, o.Has("a\ufffd")} },
			want: result{nil, false}, errs: fe(`$['a\uFFFD']`, "is not a known field")},
		{name: "child", body: `{"a":{"x":1}}`, check: func(o Object) result { c, p := o.Child("a", true, sub); return result{c.Path(), p == Valid} },
			want: result{"$.a", true}},
		{name: "child not an object", body: `{"a":[]}`, check: func(o Object) result { _, p := o.Child("a", true, sub); return result{nil, p == Invalid} },
			want: result{nil, true}, errs: fe("$.a", "must be an object, got array")},
		{name: "child unknown member", body: `{"a":{"x":1,"y z":2}}`, check: func(o Object) result { c, p := o.Child("a", false, sub); return result{c.At("x"), p == Valid} },
			want: result{"$.a.x", true}, errs: fe("$.a['y z']", "is not a known field")},
		{name: "child absent", body: `{"a":null}`, check: func(o Object) result { _, p := o.Child("a", false, sub); return result{nil, p == Absent} },
			want: result{nil, true}},
		{name: "report and missing", body: `{"a":null}`, check: func(o Object) result {
			n, _ := o.Lookup("a")
			o.Missing("a", n)
			o.Missing("b", nil)
			o.Report("c", "rule")
			return result{}
		}, errs: []FieldError{{"$.a", "is required and must not be null"}, {"$.b", "is required"}, {"$.c", "rule"}}},
		{name: "field kind", body: `{"a":"1"}`, check: func(o Object) result { _, p := o.Field("a", true, KindNumber); return result{nil, p == Invalid} },
			want: result{nil, true}, errs: fe("$.a", "must be a number, got string")},
	})
}

func TestObjectList(t *testing.T) {
	sub := &FieldSet{Names: []string{"x"}}
	runGetterCases(t, []getterCase{
		{name: "elements", body: `{"a":[{"x":1},{"y":2},3]}`, check: func(o Object) result {
			l, p := o.List("a", true, "things", 1, 3)
			var paths []string
			for i := range l.Len() {
				if e, ok := l.Object(i, sub); ok {
					paths = append(paths, e.At("x"))
				}
			}
			return result{paths, p == Valid}
		}, want: result{[]string{"$.a[0].x", "$.a[1].x"}, true},
			errs: []FieldError{{"$.a[1].y", "is not a known field"}, {"$.a[2]", "must be an object, got number"}}},
		{name: "too many", body: `{"a":[1,2,3]}`, check: func(o Object) result { _, p := o.List("a", true, "things", 1, 2); return result{nil, p == Invalid} },
			want: result{nil, true}, errs: fe("$.a", "holds 3 things; send 1 to 2")},
		{name: "empty", body: `{"a":[]}`, check: func(o Object) result { _, p := o.List("a", true, "things", 1, 2); return result{nil, p == Invalid} },
			want: result{nil, true}, errs: fe("$.a", "holds 0 things; send 1 to 2")},
		{name: "not an array", body: `{"a":"x"}`, check: func(o Object) result { _, p := o.List("a", true, "things", 1, 2); return result{nil, p == Invalid} },
			want: result{nil, true}, errs: fe("$.a", "must be an array of things, got string")},
		{name: "values and paths", body: `{"b":{"x":["p","q"]}}`, check: func(o Object) result {
			b, _ := o.Child("b", true, &FieldSet{Names: []string{"x"}})
			l, _ := b.List("x", true, "things", 0, 5)
			return result{[]string{l.Value(1).Text, l.Path(1)}, l.Len() == 2}
		}, want: result{[]string{"q", "$.b.x[1]"}, true}},
		{name: "optional absent", body: `{}`, check: func(o Object) result { l, p := o.List("a", false, "things", 1, 2); return result{l.Len(), p == Absent} },
			want: result{0, true}},
	})
}

func TestRootArray(t *testing.T) {
	sub := &FieldSet{Names: []string{"x"}}
	for _, tc := range []struct {
		body string
		errs []FieldError
	}{
		{`[{"x":1},{"x":2}]`, nil},
		{`[{"x":1},{"z":2}]`, fe("$[1].z", "is not a known field")},
		{`[]`, fe("$", "holds 0 items; send 1 to 2")},
		{`{}`, fe("$", "must be an array of items, got object")},
	} {
		var c Checker
		if errs := c.Decode(tc.body, FlagCharacters); errs != nil {
			t.Fatal(errs)
		}
		if l, ok := c.RootArray("items", 1, 2); ok {
			for i := range l.Len() {
				if o, ok := l.Object(i, sub); ok && o.Path() != "$["+strconv.Itoa(i)+"]" {
					t.Errorf("%s: element %d at %s", tc.body, i, o.Path())
				}
			}
		}
		checkErrs(t, c.Errors(), tc.errs)
	}
}

func TestAnchored(t *testing.T) {
	var c Checker
	if errs := c.Decode(`{"a":[{"x":1}]}`, RefuseCharacters); errs != nil {
		t.Fatal(errs)
	}
	obj, _ := c.RootObject(testFields)
	l, _ := obj.List("a", true, "things", 1, 1)
	o, _ := l.Object(0, &FieldSet{Names: []string{"x"}})
	a := o.Anchored()
	if o.Path() != "$.a[0]" || a.Path() != "$.a[0]" || a.At("x") != "$.a[0].x" {
		t.Errorf("paths %s %s %s", o.Path(), a.Path(), a.At("x"))
	}
	if allocs := testing.AllocsPerRun(10, func() { _ = a.Path() }); allocs != 0 {
		t.Errorf("anchored Path allocates %v times", allocs)
	}
}

func TestErrorLimit(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("{")
	for i := range 60 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"u` + strconv.Itoa(i) + `":1`)
	}
	sb.WriteString("}")
	var c Checker
	if errs := c.Decode(sb.String(), FlagCharacters); errs != nil {
		t.Fatal(errs)
	}
	c.RootObject(testFields)
	errs := c.Errors()
	if len(errs) != MaxFieldErrors || !c.Full() || errs[MaxFieldErrors-2].Path != "$.u48" ||
		errs[MaxFieldErrors-1] != (FieldError{Path: "$", Rule: "more than 49 errors; the first 49 are listed, fix them and send again"}) {
		t.Fatalf("%d errors, full %v, last %v", len(errs), c.Full(), errs[len(errs)-1])
	}
	c.Add("$", "more")
	if len(c.Errors()) != MaxFieldErrors {
		t.Errorf("error added past the limit")
	}
}

func TestDecodeFailure(t *testing.T) {
	var c Checker
	errs := c.Decode(`{"a":"\u0007"}`, RefuseCharacters)
	if len(errs) != 1 || errs[0].Path != "$.a" || !strings.Contains(errs[0].Rule, "control character U+0007") {
		t.Errorf("got %v", errs)
	}
	errs = c.Decode(`{"a":}`, FlagCharacters)
	if len(errs) != 1 || errs[0].Path != "$.a" || !strings.HasPrefix(errs[0].Rule, "invalid JSON: ") {
		t.Errorf("got %v", errs)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindNull: "null", KindBool: "boolean", KindNumber: "number", KindString: "string",
		KindArray: "array", KindObject: "object"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %s, want %s", k, got, want)
		}
	}
}
