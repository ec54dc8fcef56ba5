package caddymodule

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/obgw/obgw/gateway"
)

// TestVerifyModesDocNamesEveryCheck holds the modes field's doc comment,
// the user's configuration reference, to the pipeline's list of checks:
// every check, in the order it runs.
func TestVerifyModesDocNamesEveryCheck(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "verify.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Verify" {
			for _, fld := range ts.Type.(*ast.StructType).Fields.List {
				if len(fld.Names) == 1 && fld.Names[0].Name == "Modes" {
					doc = fld.Doc.Text()
				}
			}
		}
		return doc == ""
	})
	names := make([]string, 0, gateway.NumChecks)
	for _, c := range gateway.Checks() {
		names = append(names, c.String())
	}
	want := strings.Join(names, ", ") + "."
	if !strings.Contains(strings.Join(strings.Fields(doc), " "), want) {
		t.Errorf("Verify.Modes doc:\n%s\ndoes not list the checks as %q", doc, want)
	}
}
