package signature

import (
	"mime"
	"strings"
	"testing"
)

func TestDecodeRFC2047(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"B utf-8", "=?utf-8?B?w5h5dmluZA==?=", "Øyvind"},
		{"b lower case, UTF-8 upper case", "=?UTF-8?b?w5h5dmluZA==?=", "Øyvind"},
		{"Q utf-8 with underscore", "=?utf-8?Q?=C3=98yvind_=C3=86r=C3=B8?=", "Øyvind Ærø"},
		{"q iso-8859-1", "=?ISO-8859-1?q?=D8yvind_=C6r=F8?=", "Øyvind Ærø"},
		{"B iso-8859-1", "=?iso-8859-1?B?2Hl2aW5k?=", "Øyvind"},
		{"adjacent words, space dropped", "=?utf-8?q?a?= =?utf-8?q?b?=", "ab"},
		{"adjacent words, tabs and spaces dropped", "=?utf-8?q?a?=\t \t=?utf-8?q?b?=", "ab"},
		{"character split across words", "=?utf-8?B?ww==?= =?utf-8?B?mA==?=", "Ø"},
		{"mixed charsets", "=?iso-8859-1?q?=D8?= =?utf-8?q?=C3=98?=", "ØØ"},
		{"empty encoded text", "=?utf-8?B??= =?utf-8?q?x?=", "x"},
		{"mime.BEncoding round trip", mime.BEncoding.Encode("utf-8", strings.Repeat("Ærø ", 40)), strings.Repeat("Ærø ", 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeRFC2047(tt.in)
			if err != nil {
				t.Fatalf("DecodeRFC2047(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("DecodeRFC2047(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeRFC2047Rejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "empty"},
		{"plain text", "keyId", "is not of the form"},
		{"plain text after", "=?utf-8?q?a?= b", "encoded-word 2 is not of the form"},
		{"plain text between", "=?utf-8?q?a?= b =?utf-8?q?c?=", "encoded-word 2"},
		{"leading space", " =?utf-8?q?a?=", "encoded-word 1 is not of the form"},
		{"trailing space", "=?utf-8?q?a?= ", "ends with whitespace"},
		{"words run together", "=?utf-8?q?a?==?utf-8?q?b?=", "is not of the form"},
		{"us-ascii", "=?us-ascii?q?a?=", `charset "us-ascii"`},
		{"windows-1252", "=?windows-1252?q?a?=", `charset "windows-1252"`},
		{"RFC 2231 language", "=?utf-8*en?q?a?=", `charset "utf-8*en"`},
		{"encoding X", "=?utf-8?x?a?=", "encoding other than B or Q"},
		{"encoding BB", "=?utf-8?bb?a?=", "encoding other than B or Q"},
		{"bad base64", "=?utf-8?b?w5h5dmluZA=?=", "does not decode"},
		{"bad Q escape", "=?utf-8?q?=ZZ?=", "does not decode"},
		{"NUL", "=?utf-8?q?a=00b?=", "control character U+0000"},
		{"CR LF", "=?utf-8?q?a=0D=0Ab?=", "control character U+000D"},
		{"tab", "=?utf-8?q?a=09b?=", "control character U+0009"},
		{"DEL", "=?utf-8?q?a=7Fb?=", "control character U+007F"},
		{"C1 in utf-8", "=?utf-8?q?a=C2=85b?=", "control character U+0085"},
		{"C1 in iso-8859-1", "=?iso-8859-1?q?a=85b?=", "control character U+0085"},
		{"invalid UTF-8", "=?utf-8?b?/w==?=", "invalid UTF-8"},
		{"half a character", "=?utf-8?B?ww==?=", "invalid UTF-8"},
		{"bidi override", "=?utf-8?q?a=E2=80=AEb?=", "bidi control U+202E"},
		{"emoji", "=?utf-8?b?8J+Ygg==?=", "outside the Basic Multilingual Plane"},
		{"noncharacter", "=?utf-8?q?=EF=BF=BF?=", "noncharacter U+FFFF"},
		{"too long", strings.Repeat("=?utf-8?q?a?= ", maxEncodedLen/14+1), "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeRFC2047(tt.in)
			if err == nil {
				t.Fatalf("DecodeRFC2047(%q) = %q, want an error containing %q", tt.in, got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeRFC2047(%q) error %q, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}
