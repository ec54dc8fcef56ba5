package tppclient

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsNothingOfTheBank: the TPP's client imports no package of
// this module (package doc): a bug shared by the TPP's signer and the
// bank's verifier must not cancel itself out. Its tests alone compare the
// two (differential_test.go).
func TestImportsNothingOfTheBank(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/obgw/obgw/") {
			t.Errorf("tppclient imports %s", imp)
		}
	}
}
