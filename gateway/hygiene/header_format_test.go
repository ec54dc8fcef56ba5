package hygiene

import (
	"errors"
	"strings"
	"testing"
)

type formatCase struct {
	value string
	ok    bool
}

func runFormatCases(t *testing.T, check func(name, v string) error, header string, cases []formatCase) {
	t.Helper()
	for _, tt := range cases {
		err := check(header, tt.value)
		if tt.ok {
			if err != nil {
				t.Errorf("%q: got %v, want nil", tt.value, err)
			}
			continue
		}
		var he *Error
		if !errors.As(err, &he) {
			t.Errorf("%q: got %v, want *Error", tt.value, err)
			continue
		}
		if he.Path != header {
			t.Errorf("%q: Path = %q, want %q", tt.value, he.Path, header)
		}
		if len(tt.value) >= 4 && strings.Contains(he.Text, tt.value) {
			t.Errorf("%q: Text %q echoes the value", tt.value, he.Text)
		}
	}
}

func TestCheckUUID(t *testing.T) {
	runFormatCases(t, CheckUUID, "X-Request-ID", []formatCase{
		{"99391c7e-ad88-49ec-a2ad-99ddcb1f7721", true},
		{"99391C7E-AD88-49EC-A2AD-99DDCB1F7721", true},
		{"3f2504e0-4f89-11d3-9a0c-0305e82c3301", true}, // version 1
		{"00000000-0000-0000-0000-000000000000", true},
		{"", false},
		{"99391c7e-ad88-49ec-a2ad-99ddcb1f77a", false},   // short
		{"99391c7e-ad88-49ec-a2ad-99ddcb1f77211", false}, // long
		{"99391c7ead8849eca2ad99ddcb1f7721", false},      // no hyphens
		{"{99391c7e-ad88-49ec-a2ad-99ddcb1f7721}", false},
		{"urn:uuid:99391c7e-ad88-49ec-a2ad-99ddcb1f7721", false},
		{"99391c7e_ad88-49ec-a2ad-99ddcb1f7721", false},
		{"99391c7e-ad8849ec-a2ad-99ddcb1f7721-", false},
		{"g9391c7e-ad88-49ec-a2ad-99ddcb1f7721", false},
		{" 9391c7e-ad88-49ec-a2ad-99ddcb1f7721", false},
		{"PSU-1234", false},
	})
}

func TestCheckIPAddress(t *testing.T) {
	runFormatCases(t, CheckIPAddress, "PSU-IP-Address", []formatCase{
		{"192.168.8.78", true},
		{"0.0.0.0", true},
		{"2001:db8::1", true},
		{"::1", true},
		{"::ffff:192.0.2.1", true},
		{"", false},
		{"192.168.8", false},
		{"192.168.008.78", false},
		{"256.1.1.1", false},
		{"192.168.8.78:443", false},
		{"[2001:db8::1]", false},
		{"fe80::1%eth0", false},
		{"example.com", false},
		{" 192.168.8.78", false},
	})
}

func TestCheckPort(t *testing.T) {
	runFormatCases(t, CheckPort, "PSU-IP-Port", []formatCase{
		{"1", true},
		{"443", true},
		{"65535", true},
		{"", false},
		{"0", false},
		{"65536", false},
		{"99999", false},
		{"0443", false},
		{"+443", false},
		{"-1", false},
		{"443 ", false},
		{"123456", false},
		{"4a", false},
	})
}

func TestCheckHTTPMethod(t *testing.T) {
	runFormatCases(t, CheckHTTPMethod, "PSU-HTTP-Method", []formatCase{
		{"GET", true},
		{"POST", true},
		{"PUT", true},
		{"PATCH", true},
		{"DELETE", true},
		{"get", false},
		{"HEAD", false},
		{"OPTIONS", false},
		{"", false},
		{"GET ", false},
	})
}

func TestCheckBool(t *testing.T) {
	runFormatCases(t, CheckBool, "TPP-Redirect-Preferred", []formatCase{
		{"true", true},
		{"false", true},
		{"TRUE", false},
		{"1", false},
		{"", false},
		{"yes", false},
		{"true ", false},
	})
}

func TestCheckGeoLocation(t *testing.T) {
	runFormatCases(t, CheckGeoLocation, "PSU-Geo-Location", []formatCase{
		{"GEO:59.913868,10.752245", true},
		{"GEO:52.506931;13.144558", true}, // Berlin Group's separator
		{"geo:59.9,10.7", true},
		{"GEO:-33.8688,151.2093", true},
		{"GEO:90,180", true},
		{"GEO:-90.000,-180.0", true},
		{"GEO:0,0", true},
		{"GEO:05.5,010.25", true},
		{"GEO:1.123456789012345,2", true},
		{"GEO:90.0000001,10", false},
		{"GEO:91,10", false},
		{"GEO:10,180.5", false},
		{"GEO:10,181", false},
		{"GEO:10,-999", false},
		{"GEO:1000,1", false},
		{"GEO:1.1234567890123456,2", false}, // 16 fraction digits
		{"GEO:58.9", false},
		{"GEO:59.9,", false},
		{"GEO:,10.7", false},
		{"GEO:59.,10.7", false},
		{"GEO:.5,10.7", false},
		{"GEO:+59.9,10.7", false},
		{"GEO:59.9, 10.7", false},
		{"GEO: 59.9,10.7", false},
		{"GEO:59.9,10.7,1", false},
		{"GEO:5e1,10", false},
		{"GEO59.9,10.7", false},
		{"59.9,10.7", false},
		{"GEO:--5,1", false},
		{"GEO:-,1", false},
		{"", false},
	})
}

func TestCheckRedirectURI(t *testing.T) {
	tests := []struct {
		value     string
		allowHTTP bool
		wantText  string // "" means valid
	}{
		{"https://tpp.example.no/cb?state=abc", false, ""},
		{"https://tpp.example.no", false, ""},
		{"https://tpp.example.no/", false, ""},
		{"HTTPS://TPP.EXAMPLE.NO/cb", false, ""},
		{"https://tpp.example.no:8443/cb", false, ""},
		{"https://192.0.2.1/cb", false, ""},
		{"https://[2001:db8::1]:443/cb", false, ""},
		{"https://tpp.example.no/a/b;c=d/e?x=1&y=%2F&z=a+b&w=~!$'()*,:@/?", false, ""},
		{"https://tpp.example.no./cb", false, ""},
		{"http://localhost:3000/cb", true, ""},
		{"http://LOCALHOST/cb", true, ""},
		{"http://127.0.0.1:8080/cb", true, ""},
		{"http://[::1]:8080/cb", true, ""},
		{"https://localhost/cb", false, ""},
		{"http://localhost:3000/cb", false, "must use https"},
		{"http://tpp.example.no/cb", true, "http is allowed only for localhost"},
		{"http://127.0.0.2/cb", true, "http is allowed only for localhost"},
		{"http://localhost.example.no/cb", true, "http is allowed only for localhost"},
		{"ftp://tpp.example.no/cb", false, "not an absolute https URI"},
		{"tppapp://callback", false, "not an absolute https URI"},
		{"//tpp.example.no/cb", false, "not an absolute https URI"},
		{"/cb", false, "not an absolute https URI"},
		{"", false, "not an absolute https URI"},
		{"https:tpp.example.no", false, "not an absolute https URI"},
		{"https://", false, "invalid host"},
		{"https:///cb", false, "invalid host"},
		{"https://:443/cb", false, "invalid host"},
		{"https://user:pass@tpp.example.no/cb", false, "userinfo"},
		{"https://tpp.example.no@evil.example/cb", false, "userinfo"},
		{"https://tpp.example.no/cb#frag", false, "fragment"},
		{"https://tpp.example.no#", false, "fragment"},
		{"https://tpp.example.no:0/cb", false, "invalid port"},
		{"https://tpp.example.no:65536/cb", false, "invalid port"},
		{"https://tpp.example.no:/cb", false, "invalid port"},
		{"https://tpp.example.no:ab/cb", false, "invalid port"},
		{"https://[2001:db8::1/cb", false, "unclosed IPv6"},
		{"https://[192.0.2.1]/cb", false, "invalid IPv6"},
		{"https://[fe80::1%25eth0]/cb", false, "invalid IPv6"},
		{"https://[2001:db8::1]x/cb", false, "invalid port"},
		{"https://tpp..example.no/cb", false, "invalid host"},
		{"https://.tpp.example.no/cb", false, "invalid host"},
		{"https://tpp_example.no/cb", false, "invalid host"},
		{"https://tpp.exämple.no/cb", false, "invalid host"},
		{"https://" + strings.Repeat("a", 64) + ".no/cb", false, "invalid host"},
		{"https://tpp.example.no/c b", false, "percent-encode"},
		{"https://tpp.example.no/cb?x=<script>", false, "percent-encode"},
		{"https://tpp.example.no/cb?x=\"", false, "percent-encode"},
		{"https://tpp.example.no/cb?x=å", false, "percent-encode"},
		{"https://tpp.example.no/cb?x=\x00", false, "percent-encode"},
		{"https://tpp.example.no/cb\\evil", false, "percent-encode"},
		{"https://tpp.example.no/%zz", false, "percent-encoding"},
		{"https://tpp.example.no/%2", false, "percent-encoding"},
		{"https://tpp.example.no/" + strings.Repeat("a", MaxRedirectURIBytes), false, "too long"},
	}
	for _, tt := range tests {
		err := CheckRedirectURI("TPP-Redirect-URI", tt.value, tt.allowHTTP)
		if tt.wantText == "" {
			if err != nil {
				t.Errorf("%q (allowHTTP %v): got %v, want nil", tt.value, tt.allowHTTP, err)
			}
			continue
		}
		var he *Error
		if !errors.As(err, &he) {
			t.Errorf("%q (allowHTTP %v): got %v, want *Error", tt.value, tt.allowHTTP, err)
			continue
		}
		if he.Path != "TPP-Redirect-URI" || !strings.Contains(he.Text, tt.wantText) {
			t.Errorf("%q: got %q / %q, want text containing %q", tt.value, he.Path, he.Text, tt.wantText)
		}
	}
}

func TestFormatChecksDoNotAllocateOnValidInput(t *testing.T) {
	checks := map[string]func(){
		"UUID":        func() { _ = CheckUUID("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721") },
		"IP":          func() { _ = CheckIPAddress("PSU-IP-Address", "2001:db8::1") },
		"port":        func() { _ = CheckPort("PSU-IP-Port", "443") },
		"geo":         func() { _ = CheckGeoLocation("PSU-Geo-Location", "GEO:59.913868,10.752245") },
		"redirect":    func() { _ = CheckRedirectURI("TPP-Redirect-URI", "https://[2001:db8::1]:443/cb?state=abc", false) },
		"headerValue": func() { _ = CheckHeaderValue("PSU-ID", "Øyvind Ærø") },
	}
	for name, f := range checks {
		if allocs := testing.AllocsPerRun(100, f); allocs != 0 {
			t.Errorf("%s: %v allocations, want 0", name, allocs)
		}
	}
}
