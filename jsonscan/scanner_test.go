package jsonscan

import (
	"strings"
	"testing"
)

func TestScannerErrors(t *testing.T) {
	tests := []struct {
		in         string
		lim        Limits
		p          Policy
		code       Code
		start, pos int
		path       string // AppendPath with current true
	}{
		{in: ``, code: ErrEOF, pos: 0, path: "$"},
		{in: `[1,]`, code: ErrValue, start: 3, pos: 3, path: "$[1]"},
		{in: `{"a" 1}`, code: ErrColon, start: 5, pos: 5, path: "$.a"},
		{in: `{"a":1 "b":2}`, code: ErrObjectEnd, start: 7, pos: 7, path: "$.a"},
		{in: `[1 2]`, code: ErrArrayEnd, start: 3, pos: 3, path: "$[0]"},
		{in: `{1:2}`, code: ErrName, start: 1, pos: 1, path: "$"},
		{in: `[] x`, code: ErrTrailing, start: 3, pos: 3, path: "$"},
		{in: `[01]`, code: ErrLeadingZero, start: 1, pos: 2, path: "$[0]"},
		{in: `-x`, code: ErrNumberDigit, start: 0, pos: 1, path: "$"},
		{in: `[1.]`, code: ErrNumberFraction, start: 1, pos: 3, path: "$[0]"},
		{in: `1e+`, code: ErrNumberExponent, start: 0, pos: 3, path: "$"},
		{in: `{"ab`, code: ErrStringEOF, start: 1, pos: 4, path: "$['ab...']"},
		{in: `"ab\`, code: ErrStringEOF, start: 0, pos: 3, path: "$"},
		{in: `["\x"]`, code: ErrEscape, start: 1, pos: 2, path: "$[0]"},
		{in: `["\u12"]`, code: ErrUEscape, start: 1, pos: 2, path: "$[0]"},
		{in: "[\"a\x01\"]", code: ErrRawControl, start: 1, pos: 3, path: "$[0]"},
		{in: `{"a":"x\u202ey"}`, p: Refuse, code: ErrCharacter, start: 5, pos: 7, path: "$.a"},
		{in: `{"b\u202e":1}`, p: Refuse, code: ErrCharacter, start: 1, pos: 3, path: "$['b...']"},
		{in: `[[1]]`, lim: Limits{MaxDepth: 1}, code: ErrDepth, start: 1, pos: 1, path: "$[0]"},
		{in: `{"a":1,"b":2}`, lim: Limits{MaxMembers: 1}, code: ErrMembers, start: 7, pos: 10, path: "$.b"},
		{in: `[1,2]`, lim: Limits{MaxValues: 2}, code: ErrValues, start: 3, pos: 4, path: "$[1]"},
		{in: `["abcd"]`, lim: Limits{MaxStringBytes: 3}, code: ErrStringLength, start: 1, pos: 6, path: "$[0]"},
		{in: `[1234]`, lim: Limits{MaxNumberBytes: 3}, code: ErrNumberLength, start: 1, pos: 1, path: "$[0]"},
	}
	for _, tt := range tests {
		var s Scanner
		s.Reset([]byte(tt.in), tt.lim, tt.p)
		k := s.Next()
		for k != Invalid && k != End {
			k = s.Next()
		}
		e := s.Err()
		if k != Invalid || e.Code != tt.code || e.Start != tt.start || e.Pos != tt.pos {
			t.Errorf("%q: %v %+v, want code %d start %d pos %d", tt.in, k, e, tt.code, tt.start, tt.pos)
		}
		if got := string(s.AppendPath(nil, true, 0)); got != tt.path {
			t.Errorf("%q: path %s, want %s", tt.in, got, tt.path)
		}
	}
}

func TestScannerTokens(t *testing.T) {
	in := ` {"a" : [1, "x\n", true, false, null], "b\u00e6": {} } `
	want := []Kind{ObjectStart, Name, ArrayStart, Number, String, True, False, Null, ArrayEnd, Name, ObjectStart, ObjectEnd, ObjectEnd, End}
	var s Scanner
	s.Reset([]byte(in), Contract, Permissive)
	for i, w := range want {
		if k := s.Next(); k != w {
			t.Fatalf("token %d: %v, want %v (%+v)", i, k, w, s.Err())
		}
		if w == Name && s.Token().Escaped != (i == 9) {
			t.Errorf("token %d: Escaped %v", i, s.Token().Escaped)
		}
	}
	if k := s.Next(); k != End {
		t.Errorf("after End: %v", k)
	}
}

func TestAppendName(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		name    string
		partial bool
		want    string
	}{
		{"street", false, ".street"},
		{"1a", false, "['1a']"},
		{"", false, "['']"},
		{`it's\`, false, `['it\'s\\']`},
		{"a\u202eb", false, `['a\u202Eb']`},
		{"\U0001F600", false, `['\uD83D\uDE00']`},
		{"a\xff", false, `['a\uFFFD']`},
		{"ab", true, "['ab...']"},
		{long, false, "['" + long[:64] + "...']"},
	}
	for _, tt := range tests {
		if got := string(AppendName(nil, tt.name, tt.partial)); got != tt.want {
			t.Errorf("AppendName(%q, %v) = %s, want %s", tt.name, tt.partial, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		r    rune
		want Class
	}{
		{'a', Allowed}, {'\t', Control}, {0x7f, Control}, {0x85, C1Control}, {0xa0, Allowed}, {0x202a, Bidi}, {0x2069, Bidi},
		{0x2065, Allowed}, {0xd800, Surrogate}, {0xfeff, Allowed}, {0xfffd, Allowed}, {0xfffe, Noncharacter}, {0x1f600, OutsideBMP},
		{0x110000, InvalidCodePoint},
	} {
		if got := Classify(tt.r); got != tt.want {
			t.Errorf("Classify(%U) = %v, want %v", tt.r, got, tt.want)
		}
		if got, want := Classify(tt.r) != Allowed, referenceRefused(tt.r) || tt.r > 0x10ffff; got != want {
			t.Errorf("Classify(%U) refuses %v, reference %v", tt.r, got, want)
		}
	}
}
