package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/obgw/obgw/bgerror"
)

// FuzzDiagnostics: whatever a client sends as Signature, PSU-ID, Digest
// and body, diagnostics decide as the plain pipeline does, and their texts
// (the error's and the signature check's) stay within bgerror's bound,
// valid UTF-8 without CR, with the PSU-ID shortened in the signing string.
func FuzzDiagnostics(f *testing.F) {
	fx := newFixture(f)
	good := fx.signCase(f, signedCase{body: []byte(`{"a":1}`)}).HTTP.Header
	f.Add(good.Get("Signature"), psuID, good.Get("Digest"), []byte(`{"a":1}`))
	f.Add(`keyId="SN=1,CA=CN=X",algorithm="rsa-sha256",headers="date x-request-id psu-id",signature="`+strings.Repeat("A", 344)+`"`, psuID, "", []byte(nil))
	f.Add(`keyId="SN=1,CA=CN=\"",algorithm="rsa-sha256",headers="(request-target) date",signature="x"`, "é\xff", "SHA-256=x", []byte("\r\n"))
	f.Fuzz(func(t *testing.T, sig, psu, dig string, body []byte) {
		r, _ := http.NewRequest("POST", "https://bank.example/v1/sandbox/signature-check", nil)
		r.RequestURI = "/v1/sandbox/signature-check"
		for k, v := range good {
			r.Header[k] = v
		}
		r.Header.Set("Signature", sig)
		r.Header.Set("PSU-ID", psu)
		if dig == "" {
			r.Header.Del("Digest")
		} else {
			r.Header.Set("Digest", dig)
		}
		req := &Request{HTTP: r, Body: body}
		fx.v.cfg.Replay = forgetful{}
		p := &Policy{}
		fx.v.cfg.Diagnostics = false
		plain := fx.v.Verify(context.Background(), req, p).Err
		fx.v.cfg.Diagnostics = true
		diag := fx.v.Verify(context.Background(), req, p).Err
		if (plain == nil) != (diag == nil) || plain != nil && (plain.Code != diag.Code || plain.Status != diag.Status) {
			t.Fatalf("diagnostics changed the verdict: %v, plain %v", diag, plain)
		}
		var texts []string
		if diag != nil {
			var b struct {
				TPPMessages []struct{ Text string } `json:"tppMessages"`
			}
			if err := json.Unmarshal(diag.Body(), &b); err != nil {
				t.Fatal(err)
			}
			for _, m := range b.TPPMessages {
				texts = append(texts, m.Text)
			}
		}
		a, e := fx.v.Analyse(context.Background(), req, p)
		if e != nil {
			t.Fatal(e)
		}
		for _, c := range a.Checks {
			texts = append(texts, c.Text)
		}
		for _, s := range texts {
			if len(s) > bgerror.MaxTextLength || !utf8.ValidString(s) || strings.ContainsRune(s, '\r') {
				t.Fatalf("unsafe text (%d bytes): %q", len(s), s)
			}
		}
		if len(psu) > 2*shortenedPrefix && strings.Contains(a.SigningString, "\npsu-id: "+psu) {
			t.Fatalf("whole PSU-ID in %q", a.SigningString)
		}
	})
}
