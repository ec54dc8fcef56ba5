package hygiene

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceForbidden is an independent statement of the contract's
// character rules, for comparing with jsonscan.Classify.
func referenceForbidden(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0xfffe || r == 0xffff || r > 0xffff || (r >= 0xd800 && r <= 0xdfff)
}

// referenceCheckJSON decides body with encoding/json. decided is false when
// encoding/json cannot tell (it turns lone surrogates into U+FFFD).
func referenceCheckJSON(body []byte, lim JSONLimits) (ok, decided bool) {
	lim = lim.withDefaults()
	if !json.Valid(body) {
		return false, true
	}
	if !utf8.Valid(body) {
		return false, true // valid JSON has non-ASCII only inside strings
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
	}
	var stack []*frame
	ok, decided = true, true
	checkString := func(s string) {
		if len(s) > lim.MaxStringBytes {
			ok = false
		}
		for _, r := range s {
			if r == utf8.RuneError {
				decided = false
			}
			if referenceForbidden(r) {
				ok = false
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, true
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.expectKey
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, &frame{object: v == '{', expectKey: true, keys: map[string]bool{}})
				if len(stack) > lim.MaxDepth {
					ok = false
				}
				continue // the value is complete at its closing delimiter
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					top = stack[len(stack)-1]
				} else {
					top = nil
				}
			}
		case string:
			checkString(v)
			if isKey {
				if top.keys[v] {
					ok = false
				}
				top.keys[v] = true
				if len(top.keys) > lim.MaxKeys {
					ok = false
				}
				top.expectKey = false
				continue
			}
		case json.Number:
			if len(v) > lim.MaxNumberBytes {
				ok = false
			}
		}
		if top != nil && top.object {
			top.expectKey = true
		}
	}
	return ok, decided
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		paymentBody, `{}`, `[]`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `"\uD83D\uDE00"`, `"\uD83D"`,
		"\"\u202e\"", `"\u202E"`, "\"\x00\"", "\"\x7f\"", "\"\u0085\"", "\"\xc0\xaf\"", `[1,]`, `01`,
		nested("[", "]", 33), manyKeys(20, `,"k":1`), `{"a":{"b":[1,2,{"c":"\n"}]}}`, "\ufeff{}", `1e400`,
	} {
		f.Add([]byte(s))
	}
	lim := JSONLimits{MaxDepth: 8, MaxStringBytes: 64, MaxNumberBytes: 12, MaxKeys: 20}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, l := range []JSONLimits{DefaultJSONLimits, lim} {
			err := CheckJSON(body, l)
			if err != nil {
				var he *Error
				if !errors.As(err, &he) || !strings.HasPrefix(he.Path, "$") || he.Text == "" || len(he.Text) >= 200 {
					t.Fatalf("CheckJSON error %#v: want *Error with a $ path and a short text", err)
				}
				if !utf8.ValidString(he.Path) {
					t.Fatalf("path %q is not valid UTF-8", he.Path)
				}
				for _, r := range he.Path {
					if r < 0x20 || r >= 0x7f {
						t.Fatalf("path %q carries a non-printable or non-ASCII character", he.Path)
					}
				}
			}
			if err == nil && !json.Valid(body) {
				t.Fatalf("CheckJSON accepted %q, which encoding/json rejects", body)
			}
			want, decided := referenceCheckJSON(body, l)
			if decided && (err == nil) != want {
				t.Fatalf("CheckJSON(%q, %+v) = %v, reference says ok=%v", body, l, err, want)
			}
		}
	})
}

func FuzzCheckHeaderValue(f *testing.F) {
	for _, s := range []string{"", "abc", "a\tb", "Øyvind", "\u202e", "\U0001F600", "\xc0\xaf", "\x00", "\x7f", "\u0085", "\ufffe", strings.Repeat("abcdefgh", 9) + "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want := utf8.ValidString(v)
		for _, r := range v {
			if r != '\t' && referenceForbidden(r) {
				want = false
			}
		}
		err := CheckHeaderValue("H", v)
		if (err == nil) != want {
			t.Fatalf("CheckHeaderValue(%q) = %v, want ok=%v", v, err, want)
		}
	})
}

var geoPattern = regexp.MustCompile(`^(?i:geo):(-?[0-9]{1,3}(?:\.[0-9]{1,15})?)[,;](-?[0-9]{1,3}(?:\.[0-9]{1,15})?)$`)

func referenceGeo(v string) bool {
	m := geoPattern.FindStringSubmatch(v)
	if m == nil {
		return false
	}
	within := func(s string, limit int64) bool {
		r, ok := new(big.Rat).SetString(s)
		return ok && r.Abs(r).Cmp(big.NewRat(limit, 1)) <= 0
	}
	return within(m[1], 90) && within(m[2], 180)
}

func FuzzCheckGeoLocation(f *testing.F) {
	for _, s := range []string{"GEO:59.913868,10.752245", "GEO:52.506931;13.144558", "GEO:90.0000001,1", "geo:-90,-180", "GEO:1,", "GEO:1.,2", "GEO:999,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want := referenceGeo(v)
		if err := CheckGeoLocation("PSU-Geo-Location", v); (err == nil) != want {
			t.Fatalf("CheckGeoLocation(%q) = %v, reference says ok=%v", v, err, want)
		}
	})
}

func FuzzCheckRedirectURI(f *testing.F) {
	for _, s := range []string{
		"https://tpp.example.no/cb?state=abc", "http://localhost:3000/cb", "https://[::1]:8/x", "https://u@h/",
		"https://h/#f", "https://h:0/", "https://h/%zz", "https://h/a b", "HTTPS://H", "http://[::1]/", "https://[fe80::1%25x]/",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, v string, allowHTTP bool) {
		if CheckRedirectURI("TPP-Redirect-URI", v, allowHTTP) != nil {
			return
		}
		// Whatever is accepted is an absolute URI that net/url reads the
		// same way: https (or http to a loopback host), a host, no
		// userinfo, no fragment, only printable ASCII.
		u, err := url.Parse(v)
		if err != nil {
			t.Fatalf("accepted %q, which net/url rejects: %v", v, err)
		}
		scheme := strings.ToLower(u.Scheme)
		if u.Host == "" || u.User != nil || u.Fragment != "" || strings.Contains(v, "#") || u.Opaque != "" {
			t.Fatalf("accepted %q: host %q, user %v, fragment %q, opaque %q", v, u.Host, u.User, u.Fragment, u.Opaque)
		}
		if scheme != "https" {
			host := strings.ToLower(u.Hostname())
			if !allowHTTP || scheme != "http" || (host != "localhost" && host != "127.0.0.1" && host != "::1") {
				t.Fatalf("accepted %q with scheme %q host %q (allowHTTP %v)", v, scheme, host, allowHTTP)
			}
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				t.Fatalf("accepted %q with port %q", v, p)
			}
		}
		for i := 0; i < len(v); i++ {
			if v[i] <= 0x20 || v[i] >= 0x7f {
				t.Fatalf("accepted %q with byte %#x", v, v[i])
			}
		}
	})
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// FuzzHeaderFormats compares the small format checks with reference
// implementations built from the standard library.
func FuzzHeaderFormats(f *testing.F) {
	for _, s := range []string{"99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "443", "0443", "65536", "GET", "get", "true", "False", "192.168.8.78", "2001:db8::1", "fe80::1%eth0", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := CheckUUID("X", v) == nil, uuidPattern.MatchString(v); got != want {
			t.Errorf("CheckUUID(%q) ok=%v, want %v", v, got, want)
		}
		n, err := strconv.Atoi(v)
		wantPort := err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == v
		if got := CheckPort("X", v) == nil; got != wantPort {
			t.Errorf("CheckPort(%q) ok=%v, want %v", v, got, wantPort)
		}
		wantMethod := v == "GET" || v == "POST" || v == "PUT" || v == "PATCH" || v == "DELETE"
		if got := CheckHTTPMethod("X", v) == nil; got != wantMethod {
			t.Errorf("CheckHTTPMethod(%q) ok=%v, want %v", v, got, wantMethod)
		}
		if got, want := CheckBool("X", v) == nil, v == "true" || v == "false"; got != want {
			t.Errorf("CheckBool(%q) ok=%v, want %v", v, got, want)
		}
		a, err := netip.ParseAddr(v)
		wantIP := err == nil && a.Zone() == ""
		if got := CheckIPAddress("X", v) == nil; got != wantIP {
			t.Errorf("CheckIPAddress(%q) ok=%v, want %v", v, got, wantIP)
		}
	})
}

// FuzzCheckPath compares CheckPath with a reference built from the
// standard library: valid UTF-8 and no C0, DEL or C1 control character.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"/v1/accounts/enc!!abc/balances", "/v1/sca/\x00", "/v1/accounts/\xff/balances", "/v1/x/\u0085", "/v1/x/\u00a0", "/ø"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		want := utf8.ValidString(p)
		for _, r := range p {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				want = false
			}
		}
		if got := CheckPath(p) == nil; got != want {
			t.Errorf("CheckPath(%q) ok=%v, want %v", p, got, want)
		}
	})
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9._~+/=:-]{1,128}$`)

// FuzzCheckSessionID compares CheckSessionID with a regular expression.
func FuzzCheckSessionID(f *testing.F) {
	for _, s := range []string{"s1", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721", "a b", "", "a+b/c=", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := CheckSessionID("TPP-Session-ID", v) == nil, sessionIDPattern.MatchString(v); got != want {
			t.Errorf("CheckSessionID(%q) ok=%v, want %v", v, got, want)
		}
	})
}

// FuzzCheckRequestPath: a request line's path, parsed as net/http does,
// is accepted only when cleaning it changes nothing (no dot or empty
// segment) and it holds no ';', backslash or encoded slash: what the
// routes match is what an upstream receives.
func FuzzCheckRequestPath(f *testing.F) {
	for _, s := range []string{"/v1/accounts", "/v1/payments/../sandbox/initialize", "/v1/sandbox/..;/payments/x",
		"/v1/accounts/X/balances;x", "/v1/%2e%2e/x", "/v1/a%2Fb", "/v1//x", "/v1/a\\b", "/v1/accounts/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Path == "" {
			return
		}
		if CheckRequestPath(u.Path, u.EscapedPath()) != nil {
			return
		}
		clean := path.Clean(u.Path)
		if strings.HasSuffix(u.Path, "/") && clean != "/" {
			clean += "/"
		}
		if clean != u.Path || strings.ContainsAny(u.Path, ";\\") || strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") {
			t.Fatalf("%q accepted: decoded %q, clean %q", target, u.Path, clean)
		}
	})
}
