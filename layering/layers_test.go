package layering

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/obgw/obgw/"

// rule says, for the packages under a path (the path itself and below),
// which of this module's packages they may import: those under any of
// may. A package's own subtree is always allowed.
type rule struct {
	under string
	may   []string
}

// leaves are the packages every layer may use.
var leaves = []string{"bgerror", "tppcontext", "jsonscan", "pemfile", "opensslrsa"}

// rules, the most specific first: the first whose path covers a package
// applies.
var rules = []rule{
	{"tppclient", nil},
	// Caddy's access log lines, filtered: Caddy's types, nothing of ours.
	{"accesslog", nil},
	{"bgerror", nil},
	{"jsonscan", nil},
	{"pemfile", nil},
	// RSA signatures through OpenSSL's libcrypto: nothing of ours.
	{"opensslrsa", nil},
	{"tppcontext", []string{"pemfile"}},
	{"gateway", append([]string{"gateway"}, leaves...)},
	// The backend's building blocks: none imports the handlers
	// (package backend) or a concern package.
	{"backend/payments", append([]string{"backend/bankaccount", "backend/civildate", "backend/codelists", "backend/money", "backend/strictjson"}, leaves...)},
	{"backend/store", append([]string{"backend/payments"}, leaves...)},
	{"backend/bankaccount", nil},
	{"backend/civildate", nil},
	{"backend/codelists", nil},
	{"backend/money", nil},
	{"backend/fx", []string{"backend/money"}},
	{"backend/strictjson", leaves},
	{"backend/idp", leaves},

	// What every concern answers through.
	{"backend/respond", append([]string{"backend/store", "backend/strictjson"}, leaves...)},
	// The rule every path value meets before any store is asked.
	{"backend/pathid", nil},
	// An account's balances kept with its booked transactions.
	{"backend/ledger", append([]string{"backend/civildate", "backend/store"}, leaves...)},
	// The resources as served, which several concerns write.
	{"backend/resource", append([]string{"backend/money", "backend/respond", "backend/store"}, leaves...)},
	// Concern packages: their own rules, the store, the shared answers;
	// never package backend or another concern.
	{"backend/tppcontacts", append([]string{"backend/store", "backend/strictjson", "backend/respond"}, leaves...)},
	{"backend/ais", append([]string{"backend/civildate", "backend/store", "backend/respond", "backend/resource"}, leaves...)},
	{"backend/sca", append([]string{"backend/civildate", "backend/idp", "backend/pathid", "backend/respond", "backend/store"}, leaves...)},
	// The sandbox: its data set, its opening, its mock-data operations;
	// its parsers (backend/sandbox/mockdata) are the only part of it
	// below the concerns.
	{"backend/sandbox/mockdata", append([]string{"backend/bankaccount", "backend/civildate", "backend/codelists", "backend/ledger", "backend/money", "backend/resource", "backend/respond", "backend/store", "backend/strictjson"}, leaves...)},
	{"backend/sandbox", append([]string{"backend/bankaccount", "backend/civildate", "backend/codelists", "backend/ledger", "backend/money", "backend/strictjson", "backend/store", "backend/respond", "backend/resource"}, leaves...)},
	{"backend/pis", append([]string{"backend/civildate", "backend/fx", "backend/ledger", "backend/money", "backend/payments", "backend/respond", "backend/resource", "backend/store"}, leaves...)},
	{"backend", append([]string{"backend"}, leaves...)},
}

// ruleFor is the rule of package path p (without the module prefix).
func ruleFor(p string) (rule, bool) {
	for _, r := range rules {
		if p == r.under || strings.HasPrefix(p, r.under+"/") {
			return r, true
		}
	}
	return rule{}, false
}

func allowed(r rule, p, imp string) bool {
	if imp == r.under || strings.HasPrefix(imp, r.under+"/") || strings.HasPrefix(imp, p+"/") {
		return true
	}
	for _, m := range r.may {
		if imp == m || strings.HasPrefix(imp, m+"/") {
			return true
		}
	}
	return false
}

// TestLayers: every package of the module that a rule covers imports
// (outside its tests) only what the rule allows.
func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", "github.com/obgw/obgw/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v: %s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	d := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := d.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimPrefix(pkg.ImportPath, module)
		r, ok := ruleFor(p)
		if !ok {
			continue
		}
		if r.under == "backend" && p != "backend" {
			// Package backend's rule lets it import every concern: a
			// package below it needs a row of its own.
			t.Errorf("%s has no rule of its own; give it a row in rules", p)
		}
		checked++
		for _, imp := range pkg.Imports {
			imp, ours := strings.CutPrefix(imp, module)
			if ours && !allowed(r, p, imp) {
				t.Errorf("%s imports %s, which its layer (%s) may not use", p, imp, r.under)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d packages checked; the rules no longer cover the module", checked)
	}
}

// TestRulesCatchAnUpwardImport: the rules refuse the imports they exist
// to refuse.
func TestRulesCatchAnUpwardImport(t *testing.T) {
	for _, tc := range []struct{ pkg, imp string }{
		{"gateway/seal", "tppclient"},
		{"gateway", "backend/store"},
		{"backend/payments", "backend/store"},
		{"backend/store", "backend"},
		{"tppclient", "gateway/signature"},
		{"backend", "gateway/signature"},
		{"bgerror", "backend"},
		{"backend/tppcontacts", "backend"},
		{"backend/respond", "backend/tppcontacts"},
		{"backend/ais", "backend"},
		{"backend/ais", "backend/tppcontacts"},
		{"backend/ais", "backend/pis"},
		{"backend/pis", "backend/ais"},
		{"backend/pis", "backend"},
		{"backend/pis", "backend/sca"},
		{"backend/ais", "backend/sca"},
		{"backend/sca", "backend/pis"},
		{"backend/sca", "backend/ais"},
		{"backend/sca", "backend"},
		{"backend/sca", "backend/sandbox"},
		{"backend/pis", "backend/sandbox"},
		{"backend/sandbox", "backend/pis"},
		{"backend/sandbox", "backend"},
		{"backend/sandbox", "backend/ais"},
		{"backend/sandbox", "backend/sca"},
		{"backend/sandbox", "backend/tppcontacts"},
		{"backend/ais", "backend/sandbox"},
		{"backend/tppcontacts", "backend/ais"},
		{"backend/tppcontacts", "backend/pis"},
		{"backend/tppcontacts", "backend/sca"},
		{"backend/tppcontacts", "backend/sandbox"},
		{"backend/sandbox/mockdata", "backend/sandbox"},
		{"backend/resource", "backend/pis"},
		{"backend/ledger", "backend/pis"},
		{"backend/respond", "backend/sca"},
		{"backend/pathid", "backend/sca"},
		{"backend/resource", "backend/ais"},
		{"backend/ledger", "backend"},
	} {
		r, ok := ruleFor(tc.pkg)
		if !ok || allowed(r, tc.pkg, tc.imp) {
			t.Errorf("%s may import %s", tc.pkg, tc.imp)
		}
	}
}
