package hygiene

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckHeaderValue(t *testing.T) {
	tests := []struct {
		name     string
		value    string
		wantText string // "" means valid
	}{
		{"empty", "", ""},
		{"ASCII", "Mozilla/5.0 (X11; Linux x86_64)", ""},
		{"HTAB allowed", "a\tb", ""},
		{"long ASCII", strings.Repeat("MIIDdzCCAl+gAwIBAgIEbm", 100), ""},
		{"BMP UTF-8", "Øyvind Ærø 日本 €", ""},
		{"U+FEFF allowed", "a\ufeffb", ""},
		{"NUL", "ab\x00", "control character U+0000 at byte 2"},
		{"LF", "a\nb", "control character U+000A"},
		{"CR", "a\rb", "control character U+000D"},
		{"DEL", "a\x7f", "control character U+007F"},
		{"DEL after 8 plain bytes", "abcdefghijk\x7f", "control character U+007F at byte 11"},
		{"control after 8 plain bytes", "abcdefgh\x01", "U+0001 at byte 8"},
		{"C1", "a\u0085", "C1 control character U+0085"},
		{"U+FFFE", "\ufffe", "noncharacter U+FFFE"},
		{"U+FFFF", "x\uffff", "noncharacter U+FFFF"},
		{"U+202E", "abc\u202edef", "bidirectional control character U+202E"},
		{"U+2068", "\u2068", "bidirectional control character U+2068"},
		{"emoji", "hi \U0001F600", "Basic Multilingual Plane (such as an emoji) U+1F600"},
		{"Latin-1 byte", "\xd8yvind", "invalid UTF-8 at byte 0"},
		{"overlong", "a\xc0\xaf", "invalid UTF-8 at byte 1"},
		{"truncated", "abc\xe2\x82", "invalid UTF-8"},
		{"encoded surrogate", "\xed\xa0\x80", "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckHeaderValue("PSU-User-Agent", tt.value)
			if tt.wantText == "" {
				if err != nil {
					t.Fatalf("CheckHeaderValue() = %v, want nil", err)
				}
				return
			}
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("CheckHeaderValue() = %v, want *Error", err)
			}
			if he.Path != "PSU-User-Agent" || !strings.Contains(he.Text, tt.wantText) {
				t.Errorf("got %q / %q, want path PSU-User-Agent and text containing %q", he.Path, he.Text, tt.wantText)
			}
		})
	}
}

func BenchmarkCheckHeaderValueCertificate(b *testing.B) {
	v := strings.Repeat("MIIDdzCCAl+gAwIBAgIEbm", 100) // ~2 KiB of base64
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckHeaderValue("TPP-Signature-Certificate", v); err != nil {
			b.Fatal(err)
		}
	}
}
