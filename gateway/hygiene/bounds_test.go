package hygiene

import (
	"errors"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHeaderBoundsDocumented holds the package documentation and the
// README's "Input bounds" table to headerRules, the one table of bounds.
func TestHeaderBoundsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "### Input bounds"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal(`README.md has no "### Input bounds" section`)
	}
	for _, rule := range headerRules {
		n := strconv.Itoa(rule.maxLen)
		docLine := regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(rule.name) + ` +` + n + `( |$)`)
		if !docLine.Match(doc) {
			t.Errorf("doc.go does not list %s with bound %s", rule.name, n)
		}
		if !strings.Contains(section, "| "+rule.name+" | "+n+" bytes") {
			t.Errorf("README.md's Input bounds does not list %s with %s bytes", rule.name, n)
		}
	}
}

// TestEveryHeaderRuleIsFound checks that headerRuleIndex finds each rule
// under its canonical key, so no table entry is dead.
func TestEveryHeaderRuleIsFound(t *testing.T) {
	for i, rule := range headerRules {
		if got := headerRuleIndex(http.CanonicalHeaderKey(rule.name)); got != i {
			t.Errorf("headerRuleIndex(%q) = %d, want %d", rule.name, got, i)
		}
		if rule.maxLen <= 0 {
			t.Errorf("%s has no bound", rule.name)
		}
	}
}

// TestEveryBoundIsEnforced sends each header one byte over and exactly at
// its bound.
func TestEveryBoundIsEnforced(t *testing.T) {
	for _, rule := range headerRules {
		h := http.Header{}
		h.Set(rule.name, strings.Repeat("a", rule.maxLen+1))
		var he *Error
		if err := CheckHeaders(h, HeaderRules{}); !errors.As(err, &he) || he.Path != rule.name || !strings.Contains(he.Text, "more than the "+strconv.Itoa(rule.maxLen)+" allowed") {
			t.Errorf("%s of %d bytes: CheckHeaders() = %v, want the bound named", rule.name, rule.maxLen+1, err)
		}
		if rule.format != formatAny && rule.format != formatSessionID {
			continue // a value of the bound's length is not of the format
		}
		h.Set(rule.name, strings.Repeat("a", rule.maxLen))
		if err := CheckHeaders(h, HeaderRules{}); err != nil {
			t.Errorf("%s of %d bytes: CheckHeaders() = %v, want nil", rule.name, rule.maxLen, err)
		}
	}
}
