package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// referenceRefused is an independent statement of the character policy of
// contract section 1, for comparing with Classify.
func referenceRefused(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0xfffe || r == 0xffff || r > 0xffff || (r >= 0xd800 && r <= 0xdfff)
}

// scanAll scans b to the end and returns its tokens, or ok=false and the
// scanner's error.
func scanAll(b []byte, lim Limits, p Policy) (toks []Token, e Error, ok bool) {
	var s Scanner
	s.Reset(b, lim, p)
	for {
		switch s.Next() {
		case Invalid:
			return toks, s.Err(), false
		case End:
			return toks, Error{}, true
		}
		toks = append(toks, *s.Token())
	}
}

// FuzzScanner is the differential test of the scanner against
// encoding/json: with Permissive and no limits the same documents are
// valid, every string and member name unescapes to what encoding/json
// decodes, and Token.Len is its length; with Refuse exactly the documents
// whose strings hold no refused character pass; with Contract a document
// fails only for a bound or passes as without it.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-0.5e+3,true,false,null,"x"]}`, `"\u00e6\u00F8"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`,
		`"\udc00\ud800"`, `"\"\\\/\b\f\n\r\t"`, "\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}", `01`, `-01`, `1.`,
		`1e+`, `[1,]`, `{"a":1,}`, `{"a" 1}`, "\ufeff[]", `"\u12g4"`, `"\x"`, "\"a\x01\"", "\"\u202e\"", "\"\x7f\"", `[] x`, ``,
		`{"a":{"b":[{"c":"\u0000"}]}}`, `{"a":1,"a":2}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		toks, e, ok := scanAll(b, Limits{}, Permissive)
		if valid := json.Valid(b); ok != valid {
			t.Fatalf("Permissive scan of %q: ok=%v (%+v), encoding/json valid=%v", b, ok, e, valid)
		}
		clean := ok
		if ok {
			for _, tok := range toks {
				if tok.Kind != String && tok.Kind != Name {
					continue
				}
				var want string
				if err := json.Unmarshal(b[tok.Start:tok.End], &want); err != nil {
					t.Fatalf("token %q: encoding/json: %v", b[tok.Start:tok.End], err)
				}
				raw := b[tok.Start+1 : tok.End-1]
				got, replaced := Unescape(nil, raw)
				if string(got) != want {
					t.Fatalf("Unescape(%q) = %q, encoding/json %q", raw, got, want)
				}
				if utf8.Valid(raw) && !replaced && tok.Len != len(got) {
					t.Fatalf("token %q: Len %d, unescaped %d bytes", raw, tok.Len, len(got))
				}
				var dec []rune
				for i := 0; i < len(raw); {
					var r rune
					r, i = NextRune(raw, i)
					dec = append(dec, r)
				}
				if string(dec) != want {
					t.Fatalf("NextRune over %q gives %q, encoding/json %q", raw, string(dec), want)
				}
				if replaced || !utf8.Valid(got) {
					clean = false
				}
				for _, r := range want {
					if referenceRefused(r) {
						clean = false
					}
				}
				// A U+FFFD decoded from invalid UTF-8 or a lone surrogate
				// cannot be told from one sent; Unescape's replaced does.
			}
		}
		if _, e, refOK := scanAll(b, Limits{}, Refuse); refOK != clean {
			t.Fatalf("Refuse scan of %q: ok=%v (%+v), want %v", b, refOK, e, clean)
		}
		if _, e, cOK := scanAll(b, Contract, Refuse); !cOK && clean {
			switch e.Code {
			case ErrDepth, ErrMembers, ErrValues, ErrStringLength, ErrNumberLength:
			default:
				t.Fatalf("Contract scan of %q failed with %+v, not a bound", b, e)
			}
		} else if cOK && !clean {
			t.Fatalf("Contract scan of %q passed, Refuse without limits did not", b)
		}
		for _, p := range []Policy{Permissive, Refuse} {
			var s Scanner
			s.Reset(b, Contract, p)
			for k := s.Next(); k != End; k = s.Next() {
				if k != Invalid {
					continue
				}
				for _, current := range []bool{false, true} {
					path := s.AppendPath(nil, current, 0)
					if len(path) == 0 || path[0] != '$' {
						t.Fatalf("path %q", path)
					}
					for _, c := range path {
						if c < 0x20 || c >= 0x7f {
							t.Fatalf("path %q of %q carries a non-printable byte", path, b)
						}
					}
				}
				break
			}
		}
	})
}

// FuzzFindRefused holds FindRefused to the reference policy.
func FuzzFindRefused(f *testing.F) {
	for _, s := range []string{"", "abc", "a\tb", "Øyvind", "\u202e", "\U0001F600", "\xc0\xaf", "\x00", "\x7f", "\u0085", "\ufffe", "abcdefgh\x01"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, allowTab bool) {
		want := len(s)
		for i, r := range s {
			if r == utf8.RuneError && !utf8.ValidString(s[i:min(i+utf8.UTFMax, len(s))]) {
				if r2, size := utf8.DecodeRuneInString(s[i:]); r2 == utf8.RuneError && size == 1 {
					want = i
					break
				}
			}
			if referenceRefused(r) && !(allowTab && r == '\t') {
				want = i
				break
			}
		}
		if got, _, cl := FindRefused(s, allowTab); got != want || (cl == Allowed) != (want == len(s)) {
			t.Fatalf("FindRefused(%q, %v) = %d %v, want %d", s, allowTab, got, cl, want)
		}
	})
}
