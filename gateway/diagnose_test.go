package gateway

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/signature"
)

// signedCase is a request signed as a client would, with one mistake.
type signedCase struct {
	headers []string                         // the Signature headers list
	keyID   string                           // empty: the certificate's
	key     *rsa.PrivateKey                  // nil: the QSealC's
	hash    crypto.Hash                      // 0: SHA-256
	signed  func(lines []string) string      // what the client signs; nil: lines joined with \n
	set     map[string]string                // headers set before signing
	after   func(r *http.Request, b *[]byte) // changes after signing
	body    []byte
	target  string // Request.RequestTarget: the request line's, when a base path was stripped
}

// psuID is the PSU-ID of the test requests: no diagnostic text may hold it whole.
const psuID = "3f6e2b1c-9a4d-4c1e-8b7f-2d5e6a7b8c9d"

// signCase builds the request of c for TPP "tpp" at f's clock.
func (f *fixture) signCase(t testing.TB, c signedCase) *Request {
	t.Helper()
	kp := f.pki.TPP("tpp").Seal
	r, _ := http.NewRequest("POST", "https://bank.example/v1/payments/sepa-credit-transfers", bytes.NewReader(c.body))
	r.RequestURI = "/v1/payments/sepa-credit-transfers"
	r.Header.Set("Date", f.now.UTC().Format(http.TimeFormat))
	r.Header.Set("X-Request-ID", randomUUID())
	r.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/cb")
	r.Header.Set("PSU-ID", psuID)
	r.Header.Set("TPP-Signature-Certificate", kp.HeaderValue())
	if len(c.body) > 0 {
		sum := sha256.Sum256(c.body)
		r.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.set {
		r.Header.Set(k, v)
	}
	headers := c.headers
	if headers == nil {
		headers = []string{"date", "x-request-id", "tpp-redirect-uri", "psu-id"}
		if len(c.body) > 0 {
			headers = append(headers, "digest")
		}
	}
	var lines []string
	for _, h := range headers {
		if h == signature.RequestTarget {
			lines = append(lines, h+": post "+r.RequestURI)
			continue
		}
		lines = append(lines, h+": "+r.Header.Get(h))
	}
	s := strings.Join(lines, "\n")
	if c.signed != nil {
		s = c.signed(lines)
	}
	key, hash := kp.Key, crypto.SHA256
	if c.key != nil {
		key = c.key
	}
	if c.hash != 0 {
		hash = c.hash
	}
	hh := hash.New()
	hh.Write([]byte(s))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, hash, hh.Sum(nil))
	if err != nil {
		t.Fatal(err)
	}
	keyID := c.keyID
	if keyID == "" {
		keyID = kp.KeyID()
	}
	r.Header.Set("Signature", `keyId="`+keyID+`",algorithm="rsa-sha256",headers="`+strings.Join(headers, " ")+`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
	body := c.body
	if c.after != nil {
		c.after(r, &body)
	}
	return &Request{HTTP: r, Body: body, RequestTarget: c.target}
}

// diagnosed verifies r twice, without and with diagnostics, and returns
// both errors.
func (f *fixture) diagnosed(t *testing.T, r *Request) (plain, diag *bgerror.Error) {
	t.Helper()
	p := &Policy{RequiredRole: "PSP_PI"}
	// The same request twice: replay is not what is tested.
	f.v.cfg.Replay = forgetful{}
	f.v.cfg.Diagnostics = false
	plain = f.v.Verify(context.Background(), r, p).Err
	f.v.cfg.Diagnostics = true
	defer func() { f.v.cfg.Diagnostics = false }()
	diag = f.v.Verify(context.Background(), r, p).Err
	return plain, diag
}

// TestDiagnosticsNameTheCause: with diagnostics, each kind of signature,
// Digest and Date failure says precisely what is wrong; without, the
// text is the plain one of before, and only one message.
func TestDiagnosticsNameTheCause(t *testing.T) {
	f := newFixture(t)
	f.now = f.now.Truncate(time.Second) // as Date has it
	tpp := f.pki.TPP("tpp")
	cert := tpp.Seal.Certificate
	serial := strings.ToUpper(cert.SerialNumber.Text(16))
	wantKeyID := "SN=" + serial + ",CA=CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO"
	body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"10.00"}}`)
	sum := sha256.Sum256(body)
	bodyDigest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	other := f.pki.TPP("aisp").Seal.Key

	tests := []struct {
		name      string
		c         signedCase
		plain     string   // the text without diagnostics
		want      []string // in the first text with diagnostics
		signingSS bool     // the signing string follows
	}{
		{
			name:      "psu-id not in headers",
			c:         signedCase{headers: []string{"date", "x-request-id", "tpp-redirect-uri"}},
			plain:     "the Signature headers list must include psu-id because the request has a PSU-ID header",
			want:      []string{`lacks psu-id (the request has a PSU-ID header); sign headers="date x-request-id tpp-redirect-uri psu-id"`},
			signingSS: true,
		},
		{
			name:  "date and digest not in headers",
			c:     signedCase{headers: []string{"x-request-id", "tpp-redirect-uri", "psu-id"}, body: body},
			plain: "the Signature headers list must include date",
			want:  []string{"lacks date (always required), digest (the request has a Digest header)", `sign headers="x-request-id tpp-redirect-uri psu-id date digest"`},
		},
		{
			name:  "keyId serial of another certificate",
			c:     signedCase{keyID: "SN=1A2B,CA=" + cert.Issuer.String()},
			plain: "keyId does not identify TPP-Signature-Certificate: SN must be its serial number and CA its issuer DN",
			want:  []string{"its SN 1A2B is not the certificate's serial number " + serial, "the keyId of TPP-Signature-Certificate is " + wantKeyID},
		},
		{
			name: "keyId serial in decimal",
			c:    signedCase{keyID: "SN=" + cert.SerialNumber.String() + ",CA=" + cert.Issuer.String()},
			want: []string{"you wrote the serial number in decimal; write it in hex"},
		},
		{
			name: "keyId CA of the subject",
			c:    signedCase{keyID: "SN=" + serial + ",CA=" + cert.Subject.String()},
			want: []string{"its CA is not the certificate's issuer CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO", "names the certificate's subject"},
		},
		{
			name: "keyId CA with another O",
			c:    signedCase{keyID: "SN=" + serial + ",CA=CN=Test QTSP Issuing CA,O=Other QTSP,C=NO"},
			want: []string{"the certificate's issuer has no O=Other QTSP; your CA lacks O=Test QTSP AS"},
		},
		{
			name: "keyId of the QWAC",
			c:    signedCase{keyID: signature.KeyIDFor(tpp.Web.Certificate)},
			want: []string{"keyId names the QWAC you present as TLS client certificate"},
		},
		{
			name: "keyId unparseable",
			c:    signedCase{keyID: "serial=1"},
			want: []string{`keyId must have the form`, "the keyId of TPP-Signature-Certificate is " + wantKeyID},
		},
		{
			name: "header changed after signing",
			c: signedCase{after: func(r *http.Request, _ *[]byte) {
				r.Header.Set("TPP-Redirect-URI", "https://tpp.example.no/other")
			}},
			plain:     "the signature does not verify with the key of TPP-Signature-Certificate over the headers listed",
			want:      []string{"it was made with this certificate's key, but over another string than the signing string the gateway built", "compare yours with it line by line", "SHA-256 of the string you signed: "},
			signingSS: true,
		},
		{
			name:      "final newline",
			c:         signedCase{signed: func(l []string) string { return strings.Join(l, "\n") + "\n" }},
			want:      []string{"your client signed the string with a final newline"},
			signingSS: true,
		},
		{
			name: "CRLF",
			c:    signedCase{signed: func(l []string) string { return strings.Join(l, "\r\n") }},
			want: []string{"joined the lines with CRLF"},
		},
		{
			name: "header names as sent",
			c: signedCase{signed: func(l []string) string {
				for i := range l {
					n, v, _ := strings.Cut(l[i], ": ")
					l[i] = http.CanonicalHeaderKey(n) + ": " + v
				}
				return strings.Join(l, "\n")
			}},
			want: []string{"wrote the header names as sent (Date:)"},
		},
		{
			name: "no space after the colon",
			c:    signedCase{signed: func(l []string) string { return strings.ReplaceAll(strings.Join(l, "\n"), ": ", ":") }},
			want: []string{"wrote no space after the colons"},
		},
		{
			name: "a listed header left out",
			c:    signedCase{signed: func(l []string) string { return strings.Join(l[:3], "\n") }},
			want: []string{"signed without the psu-id line although headers lists it"},
		},
		{
			name: "alphabetical order",
			c:    signedCase{signed: func(l []string) string { sort.Strings(l); return strings.Join(l, "\n") }},
			want: []string{"signed the lines in alphabetical order"},
		},
		{
			name: "(request-target) method in upper case",
			c: signedCase{headers: []string{signature.RequestTarget, "date", "x-request-id", "tpp-redirect-uri", "psu-id"}, signed: func(l []string) string {
				l[0] = strings.Replace(l[0], "post", "POST", 1)
				return strings.Join(l, "\n")
			}},
			want: []string{"signed (request-target) with the method in upper case"},
		},
		{
			name: "(request-target) without the base path",
			c:    signedCase{headers: []string{signature.RequestTarget, "date", "x-request-id", "tpp-redirect-uri", "psu-id"}, target: "/api-sandbox/v1/payments/sepa-credit-transfers"},
			want: []string{"signed (request-target) for /v1/payments/sepa-credit-transfers (without the base path)"},
		},
		{
			name: "another key",
			c:    signedCase{key: other},
			want: []string{"it was not made with the private key of this certificate (SN=" + serial + ")"},
		},
		{
			name: "SHA-512",
			c:    signedCase{hash: crypto.SHA512},
			want: []string{"it was made with this certificate's key over a SHA-512 hash"},
		},
		{
			name: "body changed after hashing",
			c: signedCase{body: body, after: func(_ *http.Request, b *[]byte) {
				*b = append(bytes.Clone(*b), ' ')
			}},
			plain: "Digest SHA-256 does not match the request body; hash the exact body bytes sent",
			want:  []string{"the gateway computed SHA-256=", "over the " + itoa(len(body)+1) + " bytes received, the header claims " + bodyDigest},
		},
		{
			name: "Digest of the empty body",
			c:    signedCase{body: body, set: map[string]string{"Digest": "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}},
			want: []string{"that is the digest of an empty body"},
		},
		{
			name: "Digest without the final newline",
			c:    signedCase{body: append(bytes.Clone(body), '\n'), set: map[string]string{"Digest": bodyDigest}},
			want: []string{"that is the digest of the body without its final newline"},
		},
		{
			name: "Digest missing",
			c: signedCase{body: body, headers: []string{"date", "x-request-id", "tpp-redirect-uri", "psu-id"}, after: func(r *http.Request, _ *[]byte) {
				r.Header.Del("Digest")
			}},
			plain: "the Digest header is missing; send SHA-256=<base64 of the SHA-256 of the body> and sign it",
			want:  []string{"(the body received is " + itoa(len(body)) + " bytes: its Digest is " + bodyDigest + ")"},
		},
		{
			name: "Digest in hex",
			c:    signedCase{body: body, set: map[string]string{"Digest": "SHA-256=" + strings.Repeat("ab", 32)}},
			want: []string{"Digest SHA-256 value is hex; send the digest in base64 (RFC 5843) (the body received is " + itoa(len(body)) + " bytes: its Digest is " + bodyDigest},
		},
		{
			name:  "Date behind",
			c:     signedCase{set: map[string]string{"Date": f.now.Add(-75 * time.Second).UTC().Format(http.TimeFormat)}},
			plain: "the Date header is more than 60 seconds from the bank's clock; synchronise the clock and sign again",
			want:  []string{"is 75 s behind the bank's clock (" + f.now.UTC().Format(http.TimeFormat) + "); at most 60 s either way"},
		},
		{
			name: "Date not an IMF-fixdate",
			c:    signedCase{set: map[string]string{"Date": f.now.UTC().Format(time.RFC3339)}},
			want: []string{"is not an IMF-fixdate; send the time as " + f.now.UTC().Format(http.TimeFormat)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.signCase(t, tt.c)
			r.ClientCertificate = tpp.Web.Certificate
			plain, diag := f.diagnosed(t, r)
			// A signature by another key recovers, with this
			// certificate's key, to noise, which ends as RSASSA-PSS
			// encodings do (0xbc) once in 256: sign another request then.
			for i := 0; tt.c.key != nil && diag != nil && strings.Contains(diag.Text, "looks like RSASSA-PSS") && i < 8; i++ {
				r = f.signCase(t, tt.c)
				r.ClientCertificate = tpp.Web.Certificate
				plain, diag = f.diagnosed(t, r)
			}
			if plain == nil || diag == nil {
				t.Fatalf("accepted: plain %v, diagnosed %v", plain, diag)
			}
			if tt.plain != "" && plain.Text != tt.plain {
				t.Errorf("plain text changed:\n got %q\nwant %q", plain.Text, tt.plain)
			}
			if len(plain.More) != 0 {
				t.Errorf("plain error has %d further messages", len(plain.More))
			}
			if diag.Code != plain.Code || diag.Status != plain.Status || diag.Path != plain.Path {
				t.Errorf("diagnostics changed the verdict: %s %d %s, plain %s %d %s", diag.Code, diag.Status, diag.Path, plain.Code, plain.Status, plain.Path)
			}
			for _, w := range tt.want {
				if !strings.Contains(diag.Text, w) {
					t.Errorf("text %q\nlacks %q", diag.Text, w)
				}
			}
			if tt.signingSS && (len(diag.More) == 0 || !strings.HasPrefix(diag.More[0].Text, "the signing string the gateway built")) {
				t.Errorf("no signing string after %q: %+v", diag.Text, diag.More)
			}
			checkSafe(t, r, diag)
			if testing.Verbose() {
				t.Logf("%s", diag.Body())
			}
		})
	}
}

// checkSafe holds a diagnosed error to its bounds: every text within
// bgerror's bound, valid UTF-8 without CR, and none holding the
// signature, the certificate or the whole PSU-ID.
func checkSafe(t *testing.T, r *Request, e *bgerror.Error) {
	t.Helper()
	var body struct {
		TPPMessages []struct{ Text string } `json:"tppMessages"`
	}
	if err := json.Unmarshal(e.Body(), &body); err != nil {
		t.Fatal(err)
	}
	sig := r.HTTP.Header.Get("Signature")
	_, sigB64, _ := strings.Cut(sig, `signature="`)
	secrets := []string{psuID, strings.TrimSuffix(sigB64, `"`)[:40], r.HTTP.Header.Get("TPP-Signature-Certificate")[:40]}
	for _, m := range body.TPPMessages {
		if len(m.Text) > bgerror.MaxTextLength || !utf8.ValidString(m.Text) || strings.ContainsRune(m.Text, '\r') {
			t.Errorf("unsafe text (%d bytes): %q", len(m.Text), m.Text)
		}
		for _, s := range secrets {
			if strings.Contains(m.Text, s) {
				t.Errorf("text holds %q: %q", s, m.Text)
			}
		}
	}
}

// TestDiagnosticsSigningString: the signing string follows the cause as
// built, lines joined with \n, the PSU-ID shortened, its SHA-256 that of
// the whole string.
func TestDiagnosticsSigningString(t *testing.T) {
	f := newFixture(t)
	r := f.signCase(t, signedCase{key: f.pki.TPP("aisp").Seal.Key})
	_, diag := f.diagnosed(t, r)
	if len(diag.More) != 1 {
		t.Fatalf("%d further messages: %+v", len(diag.More), diag.More)
	}
	h := r.HTTP.Header
	built := "date: " + h.Get("Date") + "\nx-request-id: " + h.Get("X-Request-ID") + "\ntpp-redirect-uri: https://tpp.example.no/cb\npsu-id: " + psuID
	sum := sha256.Sum256([]byte(built))
	shown := strings.Replace(built, psuID, "3f6e…(36 bytes)", 1)
	want := "the signing string the gateway built (4 lines, " + itoa(len(built)) + " bytes, SHA-256 " + base64.StdEncoding.EncodeToString(sum[:]) +
		"; identifiers shortened), to diff against the one your client signed:\n" + shown
	if m := diag.More[0]; m.Text != want || m.Path != "Signature" {
		t.Errorf("signing string message\n got %q (%s)\nwant %q", m.Text, m.Path, want)
	}
}

// TestDiagnosticsLongSigningString: a signing string longer than one
// message goes on in further ones, each within the bound, every line
// there.
func TestDiagnosticsLongSigningString(t *testing.T) {
	f := newFixture(t)
	long := "https://tpp.example.no/cb?state=" + strings.Repeat("s", 300)
	r := f.signCase(t, signedCase{
		headers: []string{"date", "x-request-id", "tpp-redirect-uri", "psu-id", "tpp-nok-redirect-uri"},
		set:     map[string]string{"TPP-Redirect-URI": long, "TPP-Nok-Redirect-URI": long + "nok"},
		// A new request id breaks the signature.
		after: func(r *http.Request, _ *[]byte) { r.Header.Set("X-Request-ID", randomUUID()) },
	})
	_, diag := f.diagnosed(t, r)
	if len(diag.More) < 2 {
		t.Fatalf("%d further messages", len(diag.More))
	}
	all := ""
	for _, m := range diag.More {
		if len(m.Text) > bgerror.MaxTextLength {
			t.Errorf("message of %d bytes", len(m.Text))
		}
		all += m.Text
	}
	for _, w := range []string{"tpp-redirect-uri: https://tpp.example.no/cb?state=sss", "tpp-nok-redirect-uri: https://", "signing string, continued:"} {
		if !strings.Contains(all, w) {
			t.Errorf("messages lack %q:\n%s", w, all)
		}
	}
	checkSafe(t, r, diag)
}

// TestAnalyse: the signature check answers every check, records nothing
// (the real call then passes with the same X-Request-ID), and for a
// faulty request says what each check found.
func TestAnalyse(t *testing.T) {
	f := newFixture(t)
	body := []byte(`{"a":1}`)
	r := f.signCase(t, signedCase{body: body})
	p := &Policy{}
	a, e := f.v.Analyse(context.Background(), r, p)
	if e != nil {
		t.Fatal(e)
	}
	got := map[string]AnalysisCheck{}
	for _, c := range a.Checks {
		got[c.Check] = c
	}
	// In the pipeline's order (issue 30, 4: one definition walked by
	// both): the signature's steps are the signature check's, the body's
	// the Digest's.
	stage := map[string]string{"signatureHeader": "signature", "keyId": "signature", "signedHeaders": "signature", "body": "digest"}
	last := -1
	for _, c := range a.Checks {
		name := c.Check
		if s, ok := stage[name]; ok {
			name = s
		}
		check, ok := ParseCheck(name)
		at := slices.Index(pipeline[:], check)
		if !ok || at < last {
			t.Errorf("check %s out of the pipeline's order: %v", c.Check, a.Checks)
		}
		last = at
	}
	if a.Result != "ok" {
		t.Fatalf("result %s: %+v", a.Result, a.Checks)
	}
	for _, c := range []string{"hygiene", "date", "certificate", "signatureHeader", "keyId", "signedHeaders", "signature", "registry", "digest", "body"} {
		if got[c].Status != "ok" {
			t.Errorf("%s: %+v", c, got[c])
		}
	}
	if !strings.Contains(got["certificate"].Text, "its keyId is SN=") || !strings.Contains(got["registry"].Text, "PSDNO-FSA-987654321 is authorised; roles granted: ") {
		t.Errorf("certificate %q, registry %q", got["certificate"].Text, got["registry"].Text)
	}
	if !strings.Contains(a.SigningString, "psu-id: 3f6e…(36 bytes)") || strings.Contains(a.SigningString, psuID) || a.SigningStringSHA256 == "" {
		t.Errorf("signing string %q (%s)", a.SigningString, a.SigningStringSHA256)
	}
	sum := sha256.Sum256(body)
	sum512 := sha512.Sum512(body)
	if a.Body == nil || a.Body.Bytes != len(body) || a.Body.Digest != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) ||
		a.Body.DigestSHA512 != "SHA-512="+base64.StdEncoding.EncodeToString(sum512[:]) || a.Body.Claimed != a.Body.Digest {
		t.Errorf("body %+v", a.Body)
	}
	if o := f.v.Verify(context.Background(), r, &Policy{RequiredRole: "PSP_PI"}); o.Err != nil {
		t.Fatalf("the real call after the check: %v", o.Err)
	}

	// A faulty request: every check still answers.
	r = f.signCase(t, signedCase{body: body, keyID: "SN=1,CA=CN=X", headers: []string{"date", "x-request-id"},
		after: func(_ *http.Request, b *[]byte) { *b = []byte(`{"a":2}`) }})
	a, _ = f.v.Analyse(context.Background(), r, p)
	got = map[string]AnalysisCheck{}
	for _, c := range a.Checks {
		got[c.Check] = c
	}
	if a.Result != "failed" {
		t.Fatalf("result %s", a.Result)
	}
	for c, want := range map[string]string{
		"keyId":         "its SN 1 is not the certificate's serial number",
		"signedHeaders": `lacks digest (the request has a Digest header), psu-id (the request has a PSU-ID header), tpp-redirect-uri (the request has a TPP-Redirect-URI header); sign headers="date x-request-id digest psu-id tpp-redirect-uri"`,
		"signature":     "",
		"registry":      "looked up only for a request whose certificate and signature pass",
		"digest":        "the body is read only once the certificate and the signature pass",
	} {
		if !strings.Contains(got[c].Text, want) {
			t.Errorf("%s: %+v lacks %q", c, got[c], want)
		}
	}
	if got["signature"].Status != "ok" || got["keyId"].Code != "SIGNATURE_INVALID" || got["digest"].Status != "skipped" || got["registry"].Status != "skipped" || a.Body != nil {
		t.Errorf("checks: %+v", a.Checks)
	}

	// A signed request whose body is not the one its Digest names: the
	// body is read, and the Digest explained.
	r = f.signCase(t, signedCase{body: body, after: func(_ *http.Request, b *[]byte) { *b = []byte(`{"a":2}`) }})
	read := ""
	lazy := func(r *Request) {
		b := r.Body
		r.Body, r.ReadBody = nil, func(tpp string) ([]byte, *bgerror.Error) { read = tpp; return b, nil }
	}
	lazy(r)
	a, _ = f.v.Analyse(context.Background(), r, p)
	got = map[string]AnalysisCheck{}
	for _, c := range a.Checks {
		got[c.Check] = c
	}
	if read != "PSDNO-FSA-987654321" || got["digest"].Code != "FORMAT_ERROR" || !strings.Contains(got["digest"].Text, "the header claims SHA-256=") {
		t.Errorf("a Digest of another body: read for %q, %+v", read, got["digest"])
	}

	// Without a trusted certificate, or without a signature that
	// verifies, the body is not read.
	for what, change := range map[string]func(*Request){
		"an untrusted certificate": func(r *Request) {
			r.HTTP.Header.Set("TPP-Signature-Certificate", f.pki.TPP("untrusted").Seal.HeaderValue())
		},
		"a signature that does not verify": func(r *Request) { r.HTTP.Header.Set("X-Request-ID", randomUUID()) },
	} {
		r = f.signCase(t, signedCase{body: body})
		change(r)
		read = ""
		lazy(r)
		if a, _ = f.v.Analyse(context.Background(), r, p); read != "" || a.Body != nil || a.Result != "failed" {
			t.Errorf("%s: body read for %q, %+v", what, read, a)
		}
	}
}

// forgetful is a replay store that never remembers.
type forgetful struct{}

func (forgetful) Claim(context.Context, string, time.Duration) (bool, error) { return true, nil }

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
