package bgerror

import (
	"net/http/httptest"
	"testing"
)

// TestCodeOf: the code of every body Body makes, with any text, path,
// further messages or link, is read back from its start; anything else
// gives "".
func TestCodeOf(t *testing.T) {
	for code := range defaultStatus {
		for _, e := range []*Error{
			New(code, "text"),
			Format("PSU-ID", `a "quoted" text`),
			New(code, "").WithSCARedirect("/v1/sca/x"),
			{Status: 400, Code: code, Text: "t", More: []Detail{{Path: "a", Text: "b"}}},
		} {
			if got := CodeOf(e.Body()); got != e.Code {
				t.Errorf("CodeOf(%s) = %q, want %q", e.Body(), got, e.Code)
			}
		}
	}
	for _, body := range []string{
		"", "{}", `{"tppMessages":[]}`, `{"tppMessages":[{"category":"ERROR","code":"NOT_A_CODE","text":"x"}]}`,
		`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR`, `<html>FORMAT_ERROR</html>`,
		` {"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`,
	} {
		if got := CodeOf([]byte(body)); got != "" {
			t.Errorf("CodeOf(%q) = %q, want none", body, got)
		}
	}
}

// TestCodeOfWritten: what Write sends is what CodeOf reads.
func TestCodeOfWritten(t *testing.T) {
	w := httptest.NewRecorder()
	New(CodeConsentInvalid, "no consent").WithSCARedirect("/v1/sca/x").Write(w)
	if got := CodeOf(w.Body.Bytes()); got != CodeConsentInvalid {
		t.Errorf("CodeOf = %q", got)
	}
}

func BenchmarkCodeOf(b *testing.B) {
	body := New(CodeConsentInvalid, "the consent is invalid; the PSU must authorise access").WithSCARedirect("/v1/sca/sealed/abc").Body()
	b.ReportAllocs()
	for b.Loop() {
		if CodeOf(body) != CodeConsentInvalid {
			b.Fatal("wrong code")
		}
	}
}
