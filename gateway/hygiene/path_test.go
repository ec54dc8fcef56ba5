package hygiene

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path     string
		wantText string // "" means valid
	}{
		{path: "/v1/accounts/enc!!AbC-_123/balances"},
		{path: "/v1/accounts/ø/balances"},
		{path: "/"},
		{path: ""},
		{path: "/v1/sca/\x00", wantText: "control character U+0000 at byte 8"},
		{path: "/v1/bank-offered-consents/a\x1fb", wantText: "U+001F"},
		{path: "/v1/x/\x7f", wantText: "U+007F"},
		{path: "/v1/x/\u0085", wantText: "C1 control character U+0085"},
		{path: "/v1/accounts/\xff/balances", wantText: "invalid UTF-8 at byte 13"},
		{path: "/v1/accounts/\xc3", wantText: "invalid UTF-8"},
		{path: "/v1/accounts/\xed\xa0\x80", wantText: "invalid UTF-8"}, // a surrogate
	}
	for _, tt := range tests {
		err := CheckPath(tt.path)
		if tt.wantText == "" {
			if err != nil {
				t.Errorf("CheckPath(%q) = %v, want nil", tt.path, err)
			}
			continue
		}
		var he *Error
		if !errors.As(err, &he) || he.Path != "(request-target)" || !strings.Contains(he.Text, tt.wantText) {
			t.Errorf("CheckPath(%q) = %v, want (request-target) and %q", tt.path, err, tt.wantText)
		}
	}
}

func TestCheckPathDoesNotAllocateOnValidInput(t *testing.T) {
	if allocs := testing.AllocsPerRun(100, func() { _ = CheckPath("/v1/accounts/enc!!AbC-_123/transactions/enc!!x") }); allocs != 0 {
		t.Errorf("CheckPath: %v allocations, want 0", allocs)
	}
}

// TestCheckRequestPath: paths that a route and an upstream could read as
// two resources are refused; the interface's own paths pass.
func TestCheckRequestPath(t *testing.T) {
	for _, tt := range []struct {
		decoded, escaped, err string
	}{
		{"/v1/accounts/enc!!abc-_DEF/transactions", "/v1/accounts/enc!!abc-_DEF/transactions", ""},
		{"/api-sandbox/v1/payments/sepa-credit-transfers", "", ""},
		{"/v1/accounts/", "", ""},
		{"/", "", ""},
		{"/v1/payments/../sandbox/initialize", "", `dot segment ("..")`},
		{"/v1/payments/../sandbox/initialize", "/v1/payments/%2e%2e/sandbox/initialize", `dot segment ("..")`},
		{"/v1/./accounts", "", `dot segment (".")`},
		{"/v1/accounts/..", "", `dot segment ("..")`},
		{"/v1/sandbox/..;/payments/sepa-credit-transfers", "", "';' (path parameters), found at byte 14"},
		{"/v1/accounts/X/balances;x", "", "';'"},
		{"/v1/accounts\\..\\payments", "", "backslash"},
		{"/v1//accounts", "", "empty segment"},
		{"/v1/accounts/a/b", "/v1/accounts/a%2Fb", "encoded slash"},
	} {
		err := CheckRequestPath(tt.decoded, tt.escaped)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.decoded, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s (%s): %v, want %q", tt.decoded, tt.escaped, err, tt.err)
		}
	}
}

// BenchmarkCheckRequestPath: the site's path check on a transactions
// read's path, which every request pays.
func BenchmarkCheckRequestPath(b *testing.B) {
	p := "/v1/accounts/enc!!Qm9ndXMtYWNjb3VudC1pZC0xMjM0NTY3OA/transactions"
	b.ReportAllocs()
	for b.Loop() {
		if CheckRequestPath(p, p) != nil {
			b.Fatal("refused")
		}
	}
}
