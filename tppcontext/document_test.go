package tppcontext

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestContextTokenDocument: docs/context-token.md lists exactly the
// claims a token carries (Context's JSON names), so the contract a bank
// codes against cannot drift from the code.
func TestContextTokenDocument(t *testing.T) {
	raw, err := os.ReadFile("../docs/context-token.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-zA-Z0-9]+)` \\|").FindAllStringSubmatch(string(raw), -1) {
		documented = append(documented, m[1])
	}
	var carried []string
	ct := reflect.TypeOf(Context{})
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		carried = append(carried, name)
	}
	slices.Sort(documented)
	slices.Sort(carried)
	if !slices.Equal(documented, carried) {
		t.Fatalf("docs/context-token.md documents %v; the token carries %v", documented, carried)
	}
	if !strings.Contains(string(raw), "version 1") || Version != 1 {
		t.Fatalf("the document's version and Version (%d) differ", Version)
	}
}
