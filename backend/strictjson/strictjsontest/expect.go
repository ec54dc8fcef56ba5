package strictjsontest

import (
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/strictjson"
)

// ExpectOne asserts that errs is exactly one FieldError at path whose rule
// contains the fragment rule, shorter than 200 bytes; or nothing when path
// is "" (a valid body).
func ExpectOne(t testing.TB, errs []strictjson.FieldError, path, rule string) {
	t.Helper()
	if path == "" {
		if len(errs) != 0 {
			t.Fatalf("valid body refused: %v", errs)
		}
		return
	}
	if len(errs) != 1 {
		t.Fatalf("want 1 error at %s (%q), got %d: %v", path, rule, len(errs), errs)
	}
	if errs[0].Path != path || !strings.Contains(errs[0].Rule, rule) {
		t.Fatalf("want %s: ...%s..., got %v", path, rule, errs[0])
	}
	if len(errs[0].Rule) > 200 {
		t.Errorf("rule text is %d bytes, want < 200: %q", len(errs[0].Rule), errs[0].Rule)
	}
}

// CheckFieldErrors asserts what every refusal must be: at most
// strictjson.MaxFieldErrors errors, each with a "$" path of at most twice
// strictjson.MaxPathBytes and a rule of 1 to 200 bytes, both printable
// ASCII, so that nothing in them could not go into an error body or a log
// line as it is.
func CheckFieldErrors(t testing.TB, errs []strictjson.FieldError) {
	t.Helper()
	if len(errs) > strictjson.MaxFieldErrors {
		t.Fatalf("%d errors, want at most %d", len(errs), strictjson.MaxFieldErrors)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e.Path, "$") || len(e.Path) > 2*strictjson.MaxPathBytes || e.Rule == "" || len(e.Rule) > 200 {
			t.Fatalf("malformed error %q", e.Error())
		}
		for _, s := range []string{e.Path, e.Rule} {
			if !printableASCII(s) {
				t.Fatalf("error carries a character it must not: %q", s)
			}
		}
	}
}

// printableASCII reports whether s is only ASCII 0x20-0x7E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
