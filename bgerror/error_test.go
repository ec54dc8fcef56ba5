package bgerror

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestStatusOfContractTable(t *testing.T) {
	cases := map[string]int{
		CodeSignatureMissing:   400,
		CodeSignatureInvalid:   400,
		CodeTimestampInvalid:   400,
		CodeCertificateMissing: 400,
		CodeCertificateInvalid: 401,
		CodeCertificateExpired: 401,
		CodeCertificateRevoked: 401,
		CodeCertificateBlocked: 401,
		CodeRoleInvalid:        401,
		CodeConsentInvalid:     401,
		CodeAccessExceeded:     429,
		CodeServiceUnavailable: 503,
		CodeStatusInvalid:      409,
		"SOMETHING_NEW":        400,
	}
	for code, want := range cases {
		if got := StatusOf(code); got != want {
			t.Errorf("StatusOf(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestWriteBody(t *testing.T) {
	e := New(CodeConsentInvalid, "no consent").WithSCARedirect("/v1/sca/abc")
	e.RetryAfter = 0
	rec := httptest.NewRecorder()
	e.Write(rec)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("status %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
	var got struct {
		TPPMessages []struct{ Category, Code, Text, Path string } `json:"tppMessages"`
		Links       map[string]struct {
			Href  string   `json:"href"`
			Verbs []string `json:"verbs"`
		} `json:"_links"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.TPPMessages) != 1 || got.TPPMessages[0].Code != "CONSENT_INVALID" || got.TPPMessages[0].Category != "ERROR" {
		t.Fatalf("messages %+v", got.TPPMessages)
	}
	if got.Links["scaRedirect"].Href != "/v1/sca/abc" || got.Links["scaRedirect"].Verbs[0] != "GET" {
		t.Fatalf("links %+v", got.Links)
	}
	if strings.Contains(rec.Body.String(), `"path"`) {
		t.Fatal("empty path must be omitted")
	}
}

func TestRetryAfterAndPath(t *testing.T) {
	e := Format("X-Request-ID", "not a UUID")
	if e.Status != 400 || e.Path != "X-Request-ID" {
		t.Fatalf("%+v", e)
	}
	l := New(CodeAccessExceeded, "limit")
	l.RetryAfter = 120
	rec := httptest.NewRecorder()
	l.Write(rec)
	if rec.Header().Get("Retry-After") != "120" || rec.Code != 429 {
		t.Fatalf("retry-after %q code %d", rec.Header().Get("Retry-After"), rec.Code)
	}
	if strings.Contains(rec.Body.String(), "_links") {
		t.Fatal("no _links expected without a redirect")
	}
}

func TestTextTruncatedOnRuneBoundary(t *testing.T) {
	long := strings.Repeat("ø", 400) // 800 bytes
	e := New(CodeFormatError, long)
	if len(e.Text) > MaxTextLength {
		t.Fatalf("text %d bytes", len(e.Text))
	}
	if !json.Valid(e.Body()) {
		t.Fatal("invalid JSON")
	}
	bad := New(CodeFormatError, "a\xffb")
	if !json.Valid(bad.Body()) || strings.Contains(bad.Text, "\xff") {
		t.Fatalf("invalid UTF-8 kept: %q", bad.Text)
	}
}

func TestMoreMessages(t *testing.T) {
	e := Format("$[0].street", "at most 70 characters")
	for i := 0; i < 60; i++ {
		e.More = append(e.More, Detail{Path: "$[1].country", Text: "not an allowed country"})
	}
	var got struct {
		TPPMessages []struct{ Code, Path string } `json:"tppMessages"`
	}
	if err := json.Unmarshal(e.Body(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.TPPMessages) != MaxMessages || got.TPPMessages[1].Path != "$[1].country" || got.TPPMessages[1].Code != "FORMAT_ERROR" {
		t.Fatalf("%+v", got.TPPMessages[:2])
	}
}
