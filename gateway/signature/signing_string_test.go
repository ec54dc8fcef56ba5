package signature

import (
	"net/http"
	"strings"
	"testing"
)

func TestAppendSigningString(t *testing.T) {
	h := http.Header{}
	h.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	h.Set("PSU-ID", "Øyvind Ærø")
	h.Set("X-Empty", "")
	long := strings.Repeat("x", maxStackHeaderName+1)
	h.Set(long, "long")

	tests := []struct {
		name       string
		headers    []string
		method     string
		requestURI string
		want       string
	}{
		{"order as listed", []string{"x-request-id", "date"}, "GET", "/", "x-request-id: 99391c7e-ad88-49ec-a2ad-99ddcb1f7721\ndate: Sun, 05 Jan 2014 21:31:40 GMT"},
		{"method lower-cased, URI as sent", []string{RequestTarget}, "DELETE", "/v1/a%2Fb?x=%C3%98&y", "(request-target): delete /v1/a%2Fb?x=%C3%98&y"},
		{"UTF-8 value as transmitted", []string{"psu-id"}, "GET", "/", "psu-id: Øyvind Ærø"},
		{"empty value", []string{"x-empty"}, "GET", "/", "x-empty: "},
		{"name longer than the stack buffer", []string{long}, "GET", "/", long + ": long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendSigningString([]byte("prefix|"), tt.headers, tt.method, tt.requestURI, h)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix|"+tt.want {
				t.Fatalf("got %q, want %q", got, "prefix|"+tt.want)
			}
		})
	}
}

func TestAppendSigningStringRejects(t *testing.T) {
	h := http.Header{}
	h.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	h["Digest"] = []string{"SHA-256=a", "SHA-512=b"}
	h["X-Lf"] = []string{"a\nb"}
	h["X-Cr"] = []string{"a\rb"}
	h["X-None"] = []string{}

	tests := []struct {
		name       string
		headers    []string
		method     string
		requestURI string
		wantErr    string
	}{
		{"no headers", nil, "GET", "/", "is empty"},
		{"absent header", []string{"date", "x-request-id"}, "GET", "/", "header x-request-id is listed in the Signature headers but absent"},
		{"present with no values", []string{"x-none"}, "GET", "/", "absent from the request"},
		{"header twice", []string{"digest"}, "GET", "/", "header digest occurs 2 times"},
		{"LF in value", []string{"x-lf"}, "GET", "/", "line break"},
		{"CR in value", []string{"x-cr"}, "GET", "/", "line break"},
		{"upper-case name", []string{"Date"}, "GET", "/", "not a lower-case token"},
		{"name with a space", []string{"da te"}, "GET", "/", "not a lower-case token"},
		{"name with a newline", []string{"date\nx"}, "GET", "/", "not a lower-case token"},
		{"empty name", []string{""}, "GET", "/", "empty name"},
		{"request-target without method", []string{RequestTarget}, "", "/", "needs the request method"},
		{"request-target without URI", []string{RequestTarget}, "GET", "", "needs the request method"},
		{"request-target with a newline in the URI", []string{RequestTarget}, "GET", "/\nx: y", "needs the request method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendSigningString(nil, tt.headers, tt.method, tt.requestURI, h)
			if err == nil {
				t.Fatalf("got %q, want an error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestAppendSigningStringAllocations(t *testing.T) {
	h := http.Header{}
	for _, name := range []string{"Date", "Digest", "X-Request-ID", "PSU-ID", "TPP-Redirect-URI", "X-Custom-Header-Name"} {
		h.Set(name, "value of "+name)
	}
	headers := []string{RequestTarget, "date", "digest", "x-request-id", "psu-id", "tpp-redirect-uri", "x-custom-header-name"}
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := AppendSigningString(buf[:0], headers, "POST", "/v1/payments/sepa-credit-transfers", h); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendSigningString allocates %v times with a large enough dst, want 0", allocs)
	}
}
