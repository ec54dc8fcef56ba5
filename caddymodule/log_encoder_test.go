package caddymodule

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// shippedLogFormat is the body of the access log's format block in the
// repository's Caddyfile (what is between its braces).
func shippedLogFormat(t testing.TB) (format, body string) {
	t.Helper()
	src, err := os.ReadFile("../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	const site = "\n\tlog {\n\t\tformat "
	i := strings.Index(s, site)
	if i < 0 {
		t.Fatal("the Caddyfile's site has no log block beginning with its format")
	}
	s = s[i+len(site):]
	format, s, _ = strings.Cut(s, " {\n")
	depth := 1
	for j, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return format, s[:j]
			}
		}
	}
	t.Fatal("the Caddyfile's log format block does not close")
	return "", ""
}

// logEncoders are Caddy's filter encoder and obgw_filter, both from the
// shipped Caddyfile's filters.
func logEncoders(t testing.TB) (caddys, ours zapcore.Encoder) {
	t.Helper()
	format, body := shippedLogFormat(t)
	if format != "obgw_filter" {
		t.Fatalf("the Caddyfile's access log is in format %q, not obgw_filter", format)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)

	fe := new(logging.FilterEncoder)
	if err := fe.UnmarshalCaddyfile(caddyfile.NewTestDispenser("filter {\n" + body + "}")); err != nil {
		t.Fatal(err)
	}
	if err := fe.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	oe := new(LogFilterEncoder)
	if err := oe.UnmarshalCaddyfile(caddyfile.NewTestDispenser("obgw_filter {\n" + body + "}")); err != nil {
		t.Fatal(err)
	}
	if err := oe.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	return fe, oe
}

// logLine encodes an access log entry as Caddy's server does: the request
// added to a clone of the encoder (the logger's lazy With), then the entry
// with the response's fields.
func logLine(t testing.TB, enc zapcore.Encoder, r *http.Request, status int, respHeader http.Header) []byte {
	c := enc.Clone()
	zap.Object("request", caddyhttp.LoggableHTTPRequest{Request: r}).AddTo(c)
	ent := zapcore.Entry{
		Level:      zapcore.InfoLevel,
		Time:       time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC),
		LoggerName: "http.log.access.log0",
		Message:    "handled request",
	}
	buf, err := c.EncodeEntry(ent, []zapcore.Field{
		zap.Int("bytes_read", 312),
		zap.String("user_id", ""),
		zap.Duration("duration", 1234567*time.Nanosecond),
		zap.Int("size", 3412),
		zap.Int("status", status),
		zap.Object("resp_headers", caddyhttp.LoggableHTTPHeader{Header: respHeader}),
	})
	if err != nil {
		t.Fatal(err)
	}
	line := append([]byte(nil), buf.Bytes()...)
	buf.Free()
	return line
}

// logRequest is a request as a TPP sends it, with every header the
// shipped filters name.
func logRequest(method, uri string, h http.Header, withTLS bool) *http.Request {
	r, err := http.NewRequest(method, "https://bank.example"+uri, nil)
	if err != nil {
		panic(err)
	}
	r.RequestURI = uri
	r.Proto = "HTTP/1.1"
	r.RemoteAddr = "198.51.100.23:50412"
	r.Header = h
	ctx := context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{caddyhttp.ClientIPVarKey: "198.51.100.23"})
	r = r.WithContext(ctx)
	if withTLS {
		r.TLS = &tls.ConnectionState{
			Version: tls.VersionTLS13, CipherSuite: tls.TLS_AES_128_GCM_SHA256,
			NegotiatedProtocol: "http/1.1", ServerName: "bank.example",
			PeerCertificates: []*x509.Certificate{{
				Subject:      pkix.Name{CommonName: "Example TPP QWAC"},
				SerialNumber: big.NewInt(4711),
			}},
		}
	}
	return r
}

func tppHeaders() http.Header {
	return http.Header{
		"X-Request-Id":              {"99391c7e-ad88-49ec-a2ad-99ddcb1f7721"},
		"Date":                      {"Sat, 28 Nov 2026 10:00:00 GMT"},
		"Digest":                    {"SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		"Signature":                 {`keyId="SN=1,CA=CN=x",algorithm="rsa-sha256",headers="digest x-request-id",signature="c2VjcmV0"`},
		"Tpp-Signature-Certificate": {"MIIBsecretcertificate"},
		"Authorization":             {"Bearer secret-token"},
		"Cookie":                    {"session=secret"},
		"X-Obgw-Context":            {"eyJsecret"},
		"Psu-Id":                    {"PSU-4711"},
		"Psu-Corporate-Id":          {"CORP-1"},
		"Psu-Device-Id":             {"device-1"},
		"Psu-Geo-Location":          {"GEO:52.506931;13.144558"},
		"Psu-User-Agent":            {"Mozilla/5.0"},
		"Psu-Ip-Port":               {"443"},
		"Tpp-Session-Id":            {"session-7"},
		"Psu-Ip-Address":            {"192.0.2.10"},
		"Consent-Id":                {"c-1"},
		"Accept":                    {"application/json", "text/plain"},
		"User-Agent":                {"tpp-client/1.0"},
	}
}

// TestAccessLogEqualsCaddys: the shipped log format (obgw_filter) writes
// field for field the lines Caddy's filter format writes with the same
// filters, on the requests of the product path and on the corners of
// each filter; and those lines keep the secrets out.
func TestAccessLogEqualsCaddys(t *testing.T) {
	caddys, ours := logEncoders(t)
	v6 := tppHeaders()
	v6.Set("Psu-Ip-Address", "2001:db8:85a3::8a2e:370:7334")
	many := tppHeaders()
	many["Psu-Id"] = []string{"PSU-1", "PSU-2"}
	many["Psu-Ip-Address"] = []string{"192.0.2.10, 198.51.100.7", "not an address"}
	many["X-Odd"] = []string{"", "\"quoted\"\n\tcontrol\x01"}
	cases := []struct {
		name   string
		r      *http.Request
		status int
		resp   http.Header
	}{
		{"consented read", logRequest("GET", "/v1/accounts/a1/transactions?dateFrom=2026-01-01&bookingStatus=booked", tppHeaders(), true), 200,
			http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"99391c7e"}, "Digest": {"SHA-256=x"},
				"Signature": {`keyId="k",signature="secret"`}, "Aspsp-Signature-Certificate": {"MIIBbankcert"}}},
		{"payment created", logRequest("POST", "/v1/payments/sepa-credit-transfers", tppHeaders(), true), 201,
			http.Header{"Location": {"/v1/payments/sepa-credit-transfers/p1"}}},
		{"sca redirect", logRequest("GET", "/v1/consents", v6, true), 401,
			http.Header{"Location": {"https://bank.example/sca?psu-id=PSU-4711&state=s1&nonce=n1&tpp-session-id=x&other=kept"}}},
		{"provider callback", logRequest("GET", "/v1/sca/callback?code=SECRETCODE&state=st4te", http.Header{"Cookie": {"obgw_sca=secret"}}, false), 303,
			http.Header{"Location": {"/v1/sca/done?psu-corporate-id=C1"}, "Set-Cookie": {"obgw_sca=secret"}}},
		{"many values", logRequest("GET", "/v1/accounts?withBalance=true&withBalance=false", many, true), 200, http.Header{}},
		{"odd target", logRequest("GET", "/v1/a%2Fb/../c;x?code=1&code=2&%zz", http.Header{}, false), 400, http.Header{"Location": {"::not a url"}}},
		{"no headers", logRequest("OPTIONS", "*", http.Header{}, false), 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := logLine(t, caddys, tc.r, tc.status, tc.resp)
			got := logLine(t, ours, tc.r, tc.status, tc.resp)
			sameLogLine(t, got, want)
			for _, secret := range []string{"c2VjcmV0", "secretcertificate", "secret-token", "session=secret", "eyJsecret", "SECRETCODE", "PSU-4711", "bankcert", "192.0.2.10", "obgw_sca=secret"} {
				if bytes.Contains(got, []byte(secret)) {
					t.Errorf("the line carries %q:\n%s", secret, got)
				}
			}
		})
	}
	// The filters did work: the hash of the PSU-ID and the masked address
	// are in the first line.
	line := logLine(t, ours, cases[0].r, 200, nil)
	for _, want := range []string{`"Psu-Id":["` + hash4("PSU-4711") + `"]`, `"Psu-Ip-Address":["192.0.0.0"]`, `"client_common_name":"` + hash4("Example TPP QWAC") + `"`} {
		if !bytes.Contains(line, []byte(want)) {
			t.Errorf("the line lacks %s:\n%s", want, line)
		}
	}
}

// sameLogLine fails unless the two lines hold the same fields with the
// same values. They are compared as JSON values: a header map is written
// in Go's map order, which differs from one encoding to the next in both
// encoders.
func sameLogLine(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("obgw_filter wrote no JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("Caddy's filter wrote no JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) || len(got) != len(want) {
		t.Fatalf("obgw_filter wrote\n%s\nCaddy's filter wrote\n%s", got, want)
	}
}

// hash4 is the log's hash of s as Caddy's hash filter writes it.
func hash4(s string) string {
	f := logging.HashFilter{}
	return f.Filter(zap.String("k", s)).String
}

// FuzzAccessLogEqualsCaddys: for any request target, header value and
// Location, both encoders write the same line.
func FuzzAccessLogEqualsCaddys(f *testing.F) {
	f.Add("/v1/accounts?withBalance=true", "PSU-1", "192.0.2.1", "https://b/sca?psu-id=1&state=2", "X-Thing", "v")
	f.Add("/v1/sca/callback?code=c&state=s", "", "2001:db8::1", "/x?nonce=%zz", "Psu-Id", "a,b")
	f.Add("*", "\x00", "1.2.3.4:80, [::1]:9", "", "", "")
	caddys, ours := logEncoders(f)
	f.Fuzz(func(t *testing.T, uri, psuID, ip, location, name, value string) {
		h := tppHeaders()
		h.Set("Psu-Id", psuID)
		h.Set("Psu-Ip-Address", ip)
		if name != "" {
			h[name] = []string{value}
		}
		r := logRequest("GET", "/", h, len(uri)%2 == 0)
		r.RequestURI = uri
		resp := http.Header{"Location": {location}}
		want := logLine(t, caddys, r, 200, resp)
		got := logLine(t, ours, r, 200, resp)
		sameLogLine(t, got, want)
	})
}

// BenchmarkAccessLog: one line of the consented read, through Caddy's
// filter format and through obgw_filter.
func BenchmarkAccessLog(b *testing.B) {
	caddys, ours := logEncoders(b)
	r := logRequest("GET", "/v1/accounts/a1/transactions?dateFrom=2026-01-01&bookingStatus=booked", tppHeaders(), true)
	resp := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"99391c7e"}, "Digest": {"SHA-256=x"},
		"Signature": {`keyId="k",signature="secret"`}, "Aspsp-Signature-Certificate": {"MIIBbankcert"}}
	for _, enc := range []struct {
		name string
		enc  zapcore.Encoder
	}{{"caddy_filter", caddys}, {"obgw_filter", ours}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				logLine(b, enc.enc, r, 200, resp)
			}
		})
	}
}
