package hygiene

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// signedHeaders is the header set of a typical signed PIS request as Go's
// server hands it over (canonical keys).
func signedHeaders() http.Header {
	h := http.Header{}
	h.Set("Host", "api.bank.example")
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("Content-Length", "1084")
	h.Set("Date", "Sun, 05 Jan 2014 21:31:40 GMT")
	h.Set("Digest", "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=")
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	h.Set("PSU-ID", "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	h.Set("PSU-IP-Address", "192.168.8.78")
	h.Set("PSU-IP-Port", "443")
	h.Set("PSU-User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)")
	h.Set("PSU-HTTP-Method", "POST")
	h.Set("PSU-Device-ID", "5b3ab8e8-0fd5-43d2-946e-d75958b172e7")
	h.Set("PSU-Geo-Location", "GEO:59.913868,10.752245")
	h.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state=abc")
	h.Set("TPP-Redirect-Preferred", "true")
	h.Set("TPP-Session-ID", "sess-20261121-0001")
	h.Set("X-Accept-Fix", "amount-as-string")
	h.Set("TPP-Signature-Certificate", strings.Repeat("MIIDdzCCAl+gAwIBAgIEbm", 80))
	h.Set("Signature", `keyId="SN=1A2B3C4D5E6F,CA=CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO",algorithm="rsa-sha256",headers="date digest x-request-id psu-id tpp-redirect-uri",signature="`+strings.Repeat("A", 344)+`"`)
	return h
}

func TestCheckHeaders(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(h http.Header)
		rules    HeaderRules
		wantPath string // "" means valid
		wantText string
	}{
		{name: "typical signed request", edit: func(http.Header) {}},
		{name: "no headers at all", edit: func(h http.Header) { clear(h) }},
		{name: "empty value list is ignored", edit: func(h http.Header) { h["Psu-Ip-Port"] = nil }},
		{name: "http localhost redirect in sandbox", rules: HeaderRules{AllowHTTPLocalhostRedirect: true},
			edit: func(h http.Header) { h.Set("TPP-Redirect-URI", "http://localhost:3000/cb") }},
		{name: "x-accept-fix may repeat", edit: func(h http.Header) { h.Add("X-Accept-Fix", "longer-names") }},
		{name: "Authorization of another scheme", edit: func(h http.Header) { h.Set("Authorization", "Bearer x") }},
		{name: "two signature carriers (X11)", edit: func(h http.Header) { h.Set("Authorization", `signature keyId="x",signature="y"`) },
			wantPath: "Authorization", wantText: "besides the Signature header"},

		{name: "bad X-Request-ID", edit: func(h http.Header) { h.Set("X-Request-ID", "1234") }, wantPath: "X-Request-ID", wantText: "not a UUID"},
		{name: "empty X-Request-ID", edit: func(h http.Header) { h.Set("X-Request-ID", "") }, wantPath: "X-Request-ID", wantText: "not a UUID"},
		{name: "bad PSU-ID", edit: func(h http.Header) { h.Set("PSU-ID", "PSU-1234") }, wantPath: "PSU-ID", wantText: "not a UUID"},
		{name: "bad PSU-Corporate-ID", edit: func(h http.Header) { h.Set("PSU-Corporate-ID", "corp") }, wantPath: "PSU-Corporate-ID", wantText: "not a UUID"},
		{name: "bad PSU-Device-ID", edit: func(h http.Header) { h.Set("PSU-Device-ID", "device") }, wantPath: "PSU-Device-ID", wantText: "not a UUID"},
		{name: "bad PSU-IP-Address", edit: func(h http.Header) { h.Set("PSU-IP-Address", "192.168.8") }, wantPath: "PSU-IP-Address", wantText: "not an IP address"},
		{name: "bad PSU-IP-Port", edit: func(h http.Header) { h.Set("PSU-IP-Port", "0") }, wantPath: "PSU-IP-Port", wantText: "not a port"},
		{name: "bad PSU-HTTP-Method", edit: func(h http.Header) { h.Set("PSU-HTTP-Method", "TRACE") }, wantPath: "PSU-HTTP-Method", wantText: "not an allowed method"},
		{name: "bad PSU-Geo-Location", edit: func(h http.Header) { h.Set("PSU-Geo-Location", "GEO:95,10") }, wantPath: "PSU-Geo-Location", wantText: "not a geo location"},
		{name: "bad TPP-Redirect-URI", edit: func(h http.Header) { h.Set("TPP-Redirect-URI", "http://tpp.example.no/cb") }, wantPath: "TPP-Redirect-URI", wantText: "must use https"},
		{name: "http localhost redirect in production", edit: func(h http.Header) { h.Set("TPP-Redirect-URI", "http://localhost:3000/cb") }, wantPath: "TPP-Redirect-URI", wantText: "must use https"},
		{name: "bad TPP-Redirect-Preferred", edit: func(h http.Header) { h.Set("TPP-Redirect-Preferred", "yes") }, wantPath: "TPP-Redirect-Preferred", wantText: "not a boolean"},

		{name: "repeated Signature", edit: func(h http.Header) { h.Add("Signature", "x") }, wantPath: "Signature", wantText: "more than once"},
		{name: "repeated Digest", edit: func(h http.Header) { h.Add("Digest", "SHA-512=abc") }, wantPath: "Digest", wantText: "more than once"},
		{name: "repeated Date", edit: func(h http.Header) { h.Add("Date", "Sun, 05 Jan 2014 21:31:40 GMT") }, wantPath: "Date", wantText: "more than once"},
		{name: "repeated TPP-Signature-Certificate", edit: func(h http.Header) { h.Add("TPP-Signature-Certificate", "MII") }, wantPath: "TPP-Signature-Certificate", wantText: "more than once"},
		{name: "repeated PSU-ID with equal values", edit: func(h http.Header) { h.Add("PSU-ID", h.Get("PSU-ID")) }, wantPath: "PSU-ID", wantText: "more than once"},
		{name: "repeated TPP-Session-ID", edit: func(h http.Header) { h.Add("TPP-Session-ID", "b") }, wantPath: "TPP-Session-ID", wantText: "more than once"},
		{name: "repeated X-Obgw-Context", edit: func(h http.Header) { h.Add("X-Obgw-Context", "a"); h.Add("X-Obgw-Context", "b") }, wantPath: "X-Obgw-Context", wantText: "more than once"},
		{name: "repeated PSU-IP-Address", edit: func(h http.Header) { h.Add("PSU-IP-Address", "10.0.0.1") }, wantPath: "PSU-IP-Address", wantText: "more than once"},
		{name: "repeated Content-Type", edit: func(h http.Header) { h.Add("Content-Type", "text/plain") }, wantPath: "Content-Type", wantText: "more than once"},
		{name: "repeated under two spellings", edit: func(h http.Header) { h["X-Request-ID"] = []string{"3f2504e0-4f89-41d3-9a0c-0305e82c3301"} }, wantPath: "X-Request-ID", wantText: "more than once"},
		{name: "repeated under a lower-case spelling", edit: func(h http.Header) { h["signature"] = []string{"x"} }, wantPath: "Signature", wantText: "more than once"},
		{name: "format checked under a non-canonical spelling", edit: func(h http.Header) { h["psu-ip-address"] = []string{"nope"}; h.Del("PSU-IP-Address") }, wantPath: "PSU-IP-Address", wantText: "not an IP address"},

		{name: "emoji in an unlisted header", edit: func(h http.Header) { h.Set("PSU-User-Agent", "App \U0001F600") }, wantPath: "PSU-User-Agent", wantText: "U+1F600"},
		{name: "bidi in PSU-ID", edit: func(h http.Header) { h.Set("PSU-ID", "\u202e") }, wantPath: "PSU-ID", wantText: "U+202E"},
		{name: "control character in second value", edit: func(h http.Header) { h.Add("X-Accept-Fix", "a\x01") }, wantPath: "X-Accept-Fix", wantText: "U+0001"},
		{name: "invalid UTF-8 in Signature", edit: func(h http.Header) { h.Set("Signature", "keyId=\"\xd8\"") }, wantPath: "Signature", wantText: "invalid UTF-8"},
		{name: "value errors come before format errors", edit: func(h http.Header) { h.Set("X-Request-ID", "bad"); h.Set("Accept", "\x00") }, wantPath: "Accept", wantText: "U+0000"},
		{name: "10 KB TPP-Session-ID", edit: func(h http.Header) { h.Set("TPP-Session-ID", strings.Repeat("s", 10<<10)) }, wantPath: "TPP-Session-ID", wantText: "10240 bytes, more than the 128 allowed"},
		{name: "129-byte TPP-Session-ID", edit: func(h http.Header) { h.Set("TPP-Session-ID", strings.Repeat("s", 129)) }, wantPath: "TPP-Session-ID", wantText: "more than the 128 allowed"},
		{name: "128-byte TPP-Session-ID", edit: func(h http.Header) { h.Set("TPP-Session-ID", strings.Repeat("s", 128)) }},
		{name: "UUID TPP-Session-ID", edit: func(h http.Header) { h.Set("TPP-Session-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721") }},
		{name: "base64 TPP-Session-ID", edit: func(h http.Header) { h.Set("TPP-Session-ID", "a+b/c=d_e~f.g:h") }},
		{name: "TPP-Session-ID with a space", edit: func(h http.Header) { h.Set("TPP-Session-ID", "a b") }, wantPath: "TPP-Session-ID", wantText: "not a session identifier"},
		{name: "TPP-Session-ID with a quote", edit: func(h http.Header) { h.Set("TPP-Session-ID", `a"b`) }, wantPath: "TPP-Session-ID", wantText: "not a session identifier"},
		{name: "2 KB TPP-Redirect-URI", edit: func(h http.Header) {
			h.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state="+strings.Repeat("a", 2048-len("https://tpp.example.no/cb?state=")))
		}, wantPath: "TPP-Redirect-URI", wantText: "2048 bytes, more than the 1024 allowed"},
		{name: "1 KiB TPP-Redirect-URI", edit: func(h http.Header) {
			h.Set("TPP-Redirect-URI", "https://tpp.example.no/cb?state="+strings.Repeat("a", 1024-len("https://tpp.example.no/cb?state=")))
		}},
		{name: "TPP-Signature-Certificate over 16 KiB", edit: func(h http.Header) { h.Set("TPP-Signature-Certificate", strings.Repeat("A", 16<<10+1)) }, wantPath: "TPP-Signature-Certificate", wantText: "more than the 16384 allowed"},
		{name: "TPP-Signature-Certificate of 16 KiB", edit: func(h http.Header) { h.Set("TPP-Signature-Certificate", strings.Repeat("A", 16<<10)) }},
		{name: "Signature over 8 KiB", edit: func(h http.Header) { h.Set("Signature", strings.Repeat("A", 8<<10+1)) }, wantPath: "Signature", wantText: "more than the 8192 allowed"},
		{name: "Digest over 4 KiB", edit: func(h http.Header) { h.Set("Digest", strings.Repeat("A", 4<<10+1)) }, wantPath: "Digest", wantText: "more than the 4096 allowed"},
		{name: "long PSU-User-Agent", edit: func(h http.Header) { h.Set("PSU-User-Agent", strings.Repeat("A", 1025)) }, wantPath: "PSU-User-Agent", wantText: "more than the 1024 allowed"},
		{name: "long PSU-Accept-Language", edit: func(h http.Header) { h.Set("PSU-Accept-Language", strings.Repeat("A", 257)) }, wantPath: "PSU-Accept-Language", wantText: "more than the 256 allowed"},
		{name: "PSU-Accept-Language may repeat", edit: func(h http.Header) { h.Add("PSU-Accept-Language", "nb"); h.Add("PSU-Accept-Language", "en") }},
		{name: "repeated values count together", edit: func(h http.Header) {
			for range 5 {
				h.Add("PSU-Accept", strings.Repeat("a", 110))
			}
		}, wantPath: "PSU-Accept", wantText: "values are together 550 bytes, more than the 512 allowed"},
		{name: "long PSU-Geo-Location", edit: func(h http.Header) { h.Set("PSU-Geo-Location", "GEO:59."+strings.Repeat("1", 60)+",10.7") }, wantPath: "PSU-Geo-Location", wantText: "more than the 64 allowed"},
		{name: "long Content-Type", edit: func(h http.Header) { h.Set("Content-Type", "application/json; x="+strings.Repeat("a", 256)) }, wantPath: "Content-Type", wantText: "more than the 256 allowed"},
		{name: "long x-accept-fix under a lower-case spelling", edit: func(h http.Header) { h["x-accept-fix"] = []string{strings.Repeat("a", 600)} }, wantPath: "X-Accept-Fix", wantText: "more than the 512 allowed"},
		{name: "multiplicity before formats, in contract order", edit: func(h http.Header) { h.Set("PSU-IP-Port", "0"); h.Add("Date", "x") }, wantPath: "Date", wantText: "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := signedHeaders()
			tt.edit(h)
			err := CheckHeaders(h, tt.rules)
			if tt.wantPath == "" {
				if err != nil {
					t.Fatalf("CheckHeaders() = %v, want nil", err)
				}
				return
			}
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("CheckHeaders() = %v, want *Error", err)
			}
			if he.Path != tt.wantPath || !strings.Contains(he.Text, tt.wantText) {
				t.Errorf("got %q / %q, want path %q and text containing %q", he.Path, he.Text, tt.wantPath, tt.wantText)
			}
		})
	}
}

func TestCheckHeadersReportsTheSameErrorWhateverTheMapOrder(t *testing.T) {
	h := signedHeaders()
	h.Set("Zz-Header", "\x00")
	h.Set("Accept-Language", "\u202e")
	h.Set("Mm-Header", "\x7f")
	h.Set("B-Header", "\xff")
	for i := 0; i < 50; i++ {
		var he *Error
		if err := CheckHeaders(h, HeaderRules{}); !errors.As(err, &he) || he.Path != "Accept-Language" {
			t.Fatalf("run %d: CheckHeaders() = %v, want the error for Accept-Language", i, err)
		}
	}
}

func TestRequire(t *testing.T) {
	h := http.Header{}
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	h.Set("Signature", "x")
	h.Set("PSU-ID", "  ")
	h["odd-spelling"] = []string{"v"}
	tests := []struct {
		names    []string
		wantPath string
		wantText string
	}{
		{names: nil},
		{names: []string{"X-Request-ID", "Signature"}},
		{names: []string{"x-request-id", "SIGNATURE"}},
		{names: []string{"odd-spelling"}},
		{names: []string{"X-Request-ID", "TPP-Signature-Certificate", "Date"}, wantPath: "TPP-Signature-Certificate", wantText: "missing"},
		{names: []string{"Date", "Signature"}, wantPath: "Date", wantText: "missing"},
		{names: []string{"PSU-ID"}, wantPath: "PSU-ID", wantText: "empty"},
		{names: []string{strings.Repeat("X-Long", 20)}, wantPath: strings.Repeat("X-Long", 20), wantText: "missing"},
	}
	for _, tt := range tests {
		err := Require(h, tt.names...)
		if tt.wantPath == "" {
			if err != nil {
				t.Errorf("Require(%q) = %v, want nil", tt.names, err)
			}
			continue
		}
		var he *Error
		if !errors.As(err, &he) || he.Path != tt.wantPath || !strings.Contains(he.Text, tt.wantText) {
			t.Errorf("Require(%q) = %v, want path %q and text containing %q", tt.names, err, tt.wantPath, tt.wantText)
		}
	}
}

func TestHeaderChecksDoNotAllocateOnValidInput(t *testing.T) {
	h := signedHeaders()
	if allocs := testing.AllocsPerRun(100, func() { _ = CheckHeaders(h, HeaderRules{}) }); allocs != 0 {
		t.Errorf("CheckHeaders: %v allocations, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		_ = Require(h, "X-Request-ID", "Signature", "TPP-Signature-Certificate", "Date", "PSU-IP-Address")
	}); allocs != 0 {
		t.Errorf("Require: %v allocations, want 0", allocs)
	}
}

func BenchmarkCheckHeaders(b *testing.B) {
	h := signedHeaders()
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckHeaders(h, HeaderRules{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRequire(b *testing.B) {
	h := signedHeaders()
	b.ReportAllocs()
	for b.Loop() {
		if err := Require(h, "X-Request-ID", "Signature", "TPP-Signature-Certificate", "Date", "Digest", "TPP-Redirect-URI"); err != nil {
			b.Fatal(err)
		}
	}
}
