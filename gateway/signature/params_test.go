package signature

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"reflect"
	"strings"
	"testing"
)

// sig256 and sig512 are well-formed signatures of RSA 2048 and 4096 bit
// sizes (their content does not matter to Parse).
var (
	sig256Bytes = bytes.Repeat([]byte{0xA5}, 256)
	sig256      = base64.StdEncoding.EncodeToString(sig256Bytes)
	sig512Bytes = bytes.Repeat([]byte{0x5A}, 512)
	sig512      = base64.StdEncoding.EncodeToString(sig512Bytes)
)

const (
	typicalKeyID   = "SN=1A2B3C4D5E6F,CA=CN=Test QTSP Root CA,O=Test QTSP AS,C=NO"
	typicalHeaders = "date digest x-request-id psu-id tpp-redirect-uri"
)

// header builds a Signature value from name=value pairs in order.
func header(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=\"%s\"", pairs[i], pairs[i+1])
	}
	return b.String()
}

func typical() string {
	return header("keyId", typicalKeyID, "algorithm", "rsa-sha256", "headers", typicalHeaders, "signature", sig256)
}

func TestParseAccepts(t *testing.T) {
	typicalHeaderList := strings.Split(typicalHeaders, " ")
	tests := []struct {
		name  string
		value string
		want  Params
	}{
		{"typical", typical(),
			Params{typicalKeyID, "rsa-sha256", typicalHeaderList, sig256Bytes}},
		{"names in any case, algorithm upper case",
			header("KEYID", typicalKeyID, "Algorithm", "RSA-SHA256", "HeAdErS", typicalHeaders, "SIGNATURE", sig256),
			Params{typicalKeyID, "rsa-sha256", typicalHeaderList, sig256Bytes}},
		{"another parameter order",
			header("signature", sig256, "headers", "date x-request-id", "algorithm", "rsa-sha256", "keyId", "k"),
			Params{"k", "rsa-sha256", []string{"date", "x-request-id"}, sig256Bytes}},
		{"spaces and tabs after commas",
			`keyId="k", algorithm="rsa-sha256",` + "\t" + `headers="date",  ` + "\t " + `signature="` + sig256 + `"`,
			Params{"k", "rsa-sha256", []string{"date"}, sig256Bytes}},
		{"4096-bit signature", header("keyId", "k", "algorithm", "rsa-sha256", "headers", "date", "signature", sig512),
			Params{"k", "rsa-sha256", []string{"date"}, sig512Bytes}},
		{"raw UTF-8 keyId", header("keyId", "SN=1,CA=O=Ærø AS", "algorithm", "rsa-sha256", "headers", "(request-target) date", "signature", sig256),
			Params{"SN=1,CA=O=Ærø AS", "rsa-sha256", []string{"(request-target)", "date"}, sig256Bytes}},
		{"RFC 2047 encoded", mime.BEncoding.Encode("utf-8", header("keyId", "SN=1,CA=O=Ærø AS", "algorithm", "rsa-sha256", "headers", "date", "signature", sig256)),
			Params{"SN=1,CA=O=Ærø AS", "rsa-sha256", []string{"date"}, sig256Bytes}},
		{"RFC 2047 Q encoded, iso-8859-1", mime.QEncoding.Encode("ISO-8859-1", header("keyId", "SN=1,CA=O=\xc6r\xf8 AS", "algorithm", "rsa-sha256", "headers", "date", "signature", sig256)),
			Params{"SN=1,CA=O=Ærø AS", "rsa-sha256", []string{"date"}, sig256Bytes}},
		{"keyId with RFC 4514 escapes", header("keyId", `SN=1,CA=O=A\, B \"C\"`, "algorithm", "rsa-sha256", "headers", "date", "signature", sig256),
			Params{`SN=1,CA=O=A\, B \"C\"`, "rsa-sha256", []string{"date"}, sig256Bytes}},
		{"32 headers", header("keyId", "k", "algorithm", "rsa-sha256", "headers", manyHeaders(32), "signature", sig256),
			Params{"k", "rsa-sha256", strings.Split(manyHeaders(32), " "), sig256Bytes}},
		{"header names with token characters", header("keyId", "k", "algorithm", "rsa-sha256", "headers", "x-a_b.c~1 date", "signature", sig256),
			Params{"k", "rsa-sha256", []string{"x-a_b.c~1", "date"}, sig256Bytes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.value)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func manyHeaders(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x-h%d", i)
	}
	return strings.Join(names, " ")
}

func TestParseRejects(t *testing.T) {
	ok := func(name string) []string { // the four parameters with one replaced or removed
		p := []string{"keyId", "k", "algorithm", "rsa-sha256", "headers", "date x-request-id", "signature", sig256}
		for i := 0; i < len(p); i += 2 {
			if p[i] == name {
				return append(p[:i:i], p[i+2:]...)
			}
		}
		return p
	}
	with := func(name, value string) string {
		return header(append(ok(name), name, value)...)
	}
	valid := header(ok("")...)
	nonASCII := with("keyId", "SN=1,CA=O=Ærø AS")
	tests := []struct {
		name    string
		value   string
		wantErr string
	}{
		{"empty", "", "empty"},
		{"too long", valid + "," + strings.Repeat("x", maxValueLen), "more than the 8192 allowed"},
		{"duplicate parameter", valid + `,keyId="k"`, "keyId appears twice"},
		{"duplicate parameter in another case", valid + `,KEYID="k"`, "KEYID appears twice"},
		{"unquoted value", strings.Replace(valid, `algorithm="rsa-sha256"`, `algorithm=rsa-sha256`, 1), "must be a quoted string"},
		{"missing keyId", header(ok("keyId")...), "no keyId parameter"},
		{"missing algorithm", header(ok("algorithm")...), "no algorithm parameter"},
		{"missing headers", header(ok("headers")...), "no headers parameter"},
		{"missing signature", header(ok("signature")...), "no signature parameter"},
		{"empty keyId", with("keyId", ""), "keyId is empty"},
		{"empty headers", with("headers", ""), "headers is empty"},
		{"unknown parameter", valid + `,foo="bar"`, "foo is not supported"},
		{"created parameter", valid + `,created="1402170695"`, "created is not supported"},
		{"expires parameter unquoted", valid + `,expires=1402170699`, "must be a quoted string"},
		{"wrong algorithm", with("algorithm", "hs2019"), `algorithm "hs2019" is not supported`},
		{"rsa-sha512", with("algorithm", "rsa-sha512"), "use rsa-sha256"},
		{"trailing garbage", valid + "x", "unexpected character at byte"},
		{"trailing comma", valid + ",", "ends with a comma"},
		{"trailing comma and space", valid + ", ", "ends with a comma"},
		{"space before comma", strings.Replace(valid, `",`, `" ,`, 1), "unexpected character"},
		{"semicolon separator", strings.Replace(valid, `",`, `";`, 1), "unexpected character"},
		{"space before =", strings.Replace(valid, `keyId=`, `keyId =`, 1), "must be followed by ="},
		{"space after =", strings.Replace(valid, `keyId=`, `keyId= `, 1), "must be a quoted string"},
		{"leading space", " " + valid, "expected a parameter name at byte 0"},
		{"two commas", strings.Replace(valid, `",`, `",,`, 1), "expected a parameter name"},
		{"no closing quote", `keyId="k`, "no closing quote"},
		{"backslash in headers", with("headers", `date\ x-request-id`), "backslash at byte 4"},
		{"backslash in algorithm", with("algorithm", `rsa\-sha256`), "backslash"},
		{"backslash ending a keyId", `keyId="a\"`, "keyId has no closing quote"},
		{"escaped quote swallowing the next parameter", `keyId="a\",algorithm="rsa-sha256"`, "unexpected character at byte 22"},
		{"tab in value", with("keyId", "a\tb"), "control character U+0009"},
		{"DEL in value", with("keyId", "a\x7fb"), "control character U+007F"},
		{"invalid UTF-8", with("keyId", "a\xffb"), "invalid UTF-8"},
		{"C1 control", with("keyId", "a\u0085b"), "control character U+0085"},
		{"bidi override", with("keyId", "a\u202eb"), "bidi control"},
		{"header listed twice", with("headers", "date x-request-id date"), "lists date twice"},
		{"upper-case header name", with("headers", "Date x-request-id"), "must be lower case"},
		{"double space", with("headers", "date  x-request-id"), "empty name"},
		{"leading space in headers", with("headers", " date"), "empty name"},
		{"trailing space in headers", with("headers", "date "), "empty name"},
		{"tab separator", with("headers", "date\tx-request-id"), "control character"},
		{"comma separator", with("headers", "date,x-request-id"), "invalid character"},
		{"(created)", with("headers", "(created) date"), `pseudo-header "(created)" is not supported`},
		{"(expires)", with("headers", "date (expires)"), `pseudo-header "(expires)" is not supported`},
		{"(Request-Target)", with("headers", "(Request-Target) date"), "pseudo-header"},
		{"too many headers", with("headers", manyHeaders(33)), "more than the 32 allowed"},
		{"URL-safe base64", with("signature", strings.NewReplacer("+", "-", "/", "_").Replace(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff}, 128)))), "not standard base64"},
		{"unpadded base64", with("signature", base64.RawStdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 257))), "not standard base64"},
		{"non-canonical padding bits", with("signature", sig256[:len(sig256)-3]+"B=="), "not standard base64"},
		{"space in base64", with("signature", sig256[:100]+" "+sig256[101:]), "not standard base64"},
		{"signature of a 1024-bit key", with("signature", base64.StdEncoding.EncodeToString(make([]byte, 128))), "signature is 172 base64 characters"},
		{"signature of 255 bytes", with("signature", base64.StdEncoding.EncodeToString(make([]byte, 255))), "signature is 340 base64 characters"},
		{"signature of 513 bytes", with("signature", base64.StdEncoding.EncodeToString(make([]byte, 513))), "decodes to 513 bytes"},
		{"signature of 4097-bit key", with("signature", base64.StdEncoding.EncodeToString(make([]byte, 514))), "signature is 688 base64 characters"},
		{"RFC 2047 with plain text", mime.BEncoding.Encode("utf-8", nonASCII) + " x", "Signature header: RFC 2047 value: encoded-word 11 is not of the form"},
		{"RFC 2047 with plain text before", "=?x " + mime.BEncoding.Encode("utf-8", nonASCII), "encoded-word 1 is not of the form"},
		{"RFC 2047 unsupported charset", "=?windows-1252?b?" + base64.StdEncoding.EncodeToString([]byte(valid)) + "?=", `charset "windows-1252"`},
		{"RFC 2047 hiding a control character", mime.BEncoding.Encode("utf-8", nonASCII+"\x00"), "control character U+0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.value)
			if err == nil {
				t.Fatalf("Parse = %+v, want an error containing %q", p, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse error %q, want it to contain %q", err, tt.wantErr)
			}
			if len(err.Error()) > 200 {
				t.Errorf("error text is %d characters, more than 200", len(err.Error()))
			}
			if strings.Contains(err.Error(), sig256[:20]) {
				t.Errorf("error text echoes the signature: %q", err)
			}
		})
	}
}

// TestParseAllocations checks that Parse allocates only the header list and
// the signature: keyId and header names are substrings of a plain value.
func TestParseAllocations(t *testing.T) {
	v := typical()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Parse(v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Fatalf("Parse allocates %v times, want at most 2 (headers slice and signature)", allocs)
	}
}
