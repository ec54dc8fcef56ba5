package signature

import (
	"net/http"
	"strings"
	"testing"
)

func TestCheckCoverage(t *testing.T) {
	full := http.Header{}
	for _, name := range []string{"Date", "X-Request-ID", "Digest", "PSU-ID", "PSU-Corporate-ID", "TPP-Redirect-URI", "PSU-IP-Address"} {
		full.Set(name, "x")
	}
	minimal := http.Header{}
	minimal.Set("Date", "x")
	minimal.Set("X-Request-ID", "x")
	sandbox := minimal.Clone()
	sandbox.Set("Digest", "x")

	all := []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}
	without := func(name string) []string {
		var out []string
		for _, n := range all {
			if n != name {
				out = append(out, n)
			}
		}
		return out
	}
	tests := []struct {
		name          string
		headers       []string
		h             http.Header
		requireTarget bool
		wantErr       string // empty: covered
	}{
		{"all present, all signed", all, full, false, ""},
		{"PSU-IP-Address need not be signed", all, full, false, ""},
		{"minimal request", []string{"date", "x-request-id"}, minimal, false, ""},
		{"sandbox mock-data route", []string{"date", "digest", "x-request-id"}, sandbox, false, ""},
		{"extra signed headers are fine", []string{"date", "x-request-id", "host", "content-type"}, minimal, false, ""},
		{"request-target required and signed", append([]string{RequestTarget}, all...), full, true, ""},
		{"date not signed", []string{"x-request-id"}, minimal, false, "must include date"},
		{"x-request-id not signed", []string{"date"}, minimal, false, "must include x-request-id"},
		{"date required even if absent", []string{"x-request-id"}, http.Header{}, false, "must include date"},
		{"digest present, not signed", without("digest"), full, false, "must include digest because the request has a Digest header"},
		{"psu-id present, not signed", without("psu-id"), full, false, "must include psu-id because the request has a PSU-ID header"},
		{"psu-corporate-id present, not signed", without("psu-corporate-id"), full, false, "PSU-Corporate-ID"},
		{"tpp-redirect-uri present, not signed", without("tpp-redirect-uri"), full, false, "TPP-Redirect-URI"},
		{"request-target required, not signed", all, full, true, "must include (request-target) on this route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCoverage(tt.headers, tt.h, tt.requireTarget)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("CheckCoverage: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("CheckCoverage error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
