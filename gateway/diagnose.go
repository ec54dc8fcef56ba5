package gateway

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/digest"
	"github.com/obgw/obgw/gateway/signature"
)

// Diagnostics (Config.Diagnostics, a sandbox's setting) replace the short
// texts of SIGNATURE_INVALID, of the Digest's FORMAT_ERROR and of
// TIMESTAMP_INVALID with the precise cause: the header the Signature's
// list lacks, what the certificate's serial and issuer are when keyId
// names another, what the signature was made over when it does not
// verify, the Digest computed beside the one claimed, and the signing
// string the gateway built, in further tppMessages, so that a TPP can diff
// it against its own. Nothing here runs on a request that passes; the
// pipeline decides exactly as without diagnostics, only the texts differ.
// Texts stay within bgerror's bound and never hold the signature, a whole
// certificate, or a PSU's identifiers (shortenValue).

// signingStringPath is the path of the tppMessages that carry the signing
// string.
const signingStringPath = "Signature"

// shownWhole are the signed headers whose values diagnostics repeat in
// full: what the TPP chose and needs to compare (dates, ids of the
// request, redirect URIs, media types). Every other value (PSU-ID,
// PSU-Corporate-ID, PSU-IP-Address, TPP-Session-ID, a signed certificate
// or Authorization...) is shortened to a few characters and its length.
var shownWhole = map[string]bool{
	signature.RequestTarget:                true,
	"date":                                 true,
	"digest":                               true,
	"x-request-id":                         true,
	"tpp-redirect-uri":                     true,
	"tpp-nok-redirect-uri":                 true,
	"tpp-redirect-preferred":               true,
	"tpp-explicit-authorisation-preferred": true,
	"content-type":                         true,
	"content-length":                       true,
	"accept":                               true,
	"host":                                 true,
	"x-accept-fix":                         true,
}

// shortenedPrefix is how many bytes of a shortened value are shown.
const shortenedPrefix = 4

// shortenValue keeps the first few characters of a value not shown whole,
// and its length: enough to tell which PSU-ID was sent, never the value.
func shortenValue(v string) string {
	n := 0
	if len(v) > 2*shortenedPrefix {
		n = shortenedPrefix
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
	}
	return v[:n] + "…(" + strconv.Itoa(len(v)) + " bytes)"
}

// shownSigningString is the signing string ss, built from headers, as
// diagnostics show it: values not in shownWhole shortened.
func shownSigningString(ss []byte, headers []string) []string {
	lines := strings.Split(string(ss), "\n")
	if len(lines) != len(headers) {
		return nil
	}
	for i, l := range lines {
		name, value, _ := strings.Cut(l, ": ")
		if !shownWhole[name] {
			lines[i] = name + ": " + shortenValue(value)
		}
	}
	return lines
}

// signingStringMessages returns the signing string as further tppMessages:
// a first one that says what it is (its SHA-256, to compare exactly with
// the client's) and its lines, joined with \n, and as many more as the
// lines need within bgerror's bound of a text.
func signingStringMessages(ss []byte, headers []string) []bgerror.Detail {
	lines := shownSigningString(ss, headers)
	if lines == nil {
		return nil
	}
	head := fmt.Sprintf("the signing string the gateway built (%d lines, %d bytes, SHA-256 %s; identifiers shortened), to diff against the one your client signed:",
		len(lines), len(ss), signature.SumBase64(ss))
	var out []bgerror.Detail
	text := head
	for _, l := range lines {
		if room := bgerror.MaxTextLength - len(text) - 1; len(l) > room {
			if text != head && text != continued {
				out = append(out, bgerror.Detail{Path: signingStringPath, Text: text})
				text = continued
				room = bgerror.MaxTextLength - len(text) - 1
			}
			l = clipText(l, room)
		}
		text += "\n" + l
	}
	return append(out, bgerror.Detail{Path: signingStringPath, Text: text})
}

// continued starts a further message of a long signing string.
const continued = "signing string, continued:"

// clipText shortens s to at most n bytes at a rune boundary, marking the
// cut with an ellipsis (3 bytes, within n).
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if n < 0 {
		return ""
	}
	return s[:n] + "…"
}

// sigStep is what one step of the signature check found: passed (text
// empty, ok), failed (text says why), or not reached.
type sigStep struct {
	ran  bool
	text string // empty: passed
}

func (s sigStep) failed() bool { return s.ran && s.text != "" }

// sigFindings is the signature check taken apart, step by step, in the
// order verifySignature runs them.
type sigFindings struct {
	missing bool    // no Signature header at all
	parse   sigStep // the Signature header parses
	keyID   sigStep // keyId names TPP-Signature-Certificate
	covered sigStep // headers lists what the dialect requires
	verify  sigStep // the signing string builds and the signature verifies over it
	params  signature.Params
	signing []byte // the signing string, when it could be built
}

// first returns the text of the first step that failed.
func (f *sigFindings) first() string {
	for _, s := range []sigStep{f.parse, f.keyID, f.covered, f.verify} {
		if s.failed() {
			return s.text
		}
	}
	return ""
}

// examineSignature runs every step of the signature check that can run,
// past the first failure, with the texts of diagnostics. It reads the
// certificate entry but changes nothing.
func examineSignature(e *certEntry, r *Request, p *Policy) *sigFindings {
	f := &sigFindings{}
	vals := r.HTTP.Header["Signature"]
	if len(vals) == 0 || vals[0] == "" {
		f.missing = true
		return f
	}
	params, err := signature.Parse(vals[0])
	f.parse = sigStep{ran: true}
	if err != nil {
		f.parse.text = err.Error()
		return f
	}
	f.params = params
	cert := e.identity.Certificate
	f.keyID = sigStep{ran: true, text: explainKeyID(params.KeyID, cert, r.ClientCertificate)}
	f.covered = sigStep{ran: true, text: explainCoverage(params.Headers, r.HTTP.Header, p.RequireRequestTarget)}
	f.verify = sigStep{ran: true}
	if e.key == nil {
		f.verify.text = "the certificate key is not a usable RSA key; rsa-sha256 needs one"
		return f
	}
	target := r.target()
	ss, err := signature.AppendSigningString(nil, params.Headers, r.HTTP.Method, target, signedHeaders(r.HTTP, params.Headers))
	if err != nil {
		f.verify.text = err.Error()
		return f
	}
	f.signing = ss
	if err := e.key.Verify(ss, params.Signature); err != nil {
		f.verify.text = explainVerification(e, params, ss, r, target, err)
	}
	return f
}

// explainKeyID says why keyId does not name cert ("" when it does), and
// what keyId would.
func explainKeyID(keyID string, cert, qwac *x509.Certificate) string {
	want := "; the keyId of TPP-Signature-Certificate is " + signature.KeyIDFor(cert)
	kid, err := signature.ParseKeyID(keyID)
	if err != nil {
		return err.Error() + want
	}
	text := kid.Mismatch(cert)
	if text == "" {
		return ""
	}
	if qwac != nil && kid.Matches(qwac) {
		text = "keyId names the QWAC you present as TLS client certificate, not the QSealC of TPP-Signature-Certificate, whose key the signature must be made with"
	}
	return text + want
}

// explainCoverage names every header the Signature's list lacks ("" when
// it lacks none) and the list to send instead.
func explainCoverage(headers []string, h http.Header, requireTarget bool) string {
	missing := signature.UncoveredHeaders(headers, h, requireTarget)
	if len(missing) == 0 {
		return ""
	}
	parts := make([]string, len(missing))
	want := slices.Clone(headers)
	for i, m := range missing {
		parts[i] = m.Name + " (" + m.Reason + ")"
		want = append(want, m.Name)
	}
	return fmt.Sprintf("the Signature headers list %q lacks %s; sign headers=%q", strings.Join(headers, " "), strings.Join(parts, ", "), strings.Join(want, " "))
}

// explainVerification says what the signature was made over, when it does
// not verify over ss, from what the certificate's public key recovers of
// it (nothing a holder of the certificate could not compute).
func explainVerification(e *certEntry, params signature.Params, ss []byte, r *Request, target string, err error) string {
	if !errors.Is(err, signature.ErrVerification) {
		return err.Error() // the size says it all
	}
	const lead = "the signature does not verify with the key of TPP-Signature-Certificate: "
	rec := e.key.Recover(params.Signature)
	switch {
	case rec.Hash == 0 && rec.PSS:
		return lead + "it looks like RSASSA-PSS; rsa-sha256 is RSASSA-PKCS1-v1_5 with SHA-256"
	case rec.Hash == 0:
		return lead + "it was not made with the private key of this certificate (SN=" + strings.ToUpper(e.identity.Certificate.SerialNumber.Text(16)) +
			"); sign with the key the certificate you send holds"
	case rec.Hash != crypto.SHA256:
		return lead + "it was made with this certificate's key over a " + rec.Hash.String() + " hash; rsa-sha256 signs the SHA-256 of the signing string"
	}
	in := signature.SigningInput{Headers: params.Headers, Method: r.HTTP.Method, Target: target, Header: signedHeaders(r.HTTP, params.Headers)}
	if r.HTTP.RequestURI != target {
		in.OtherTarget = r.HTTP.RequestURI
	}
	why := signature.ExplainDifference(rec.Sum, in)
	if why == "" {
		why = "compare yours with it line by line"
	}
	return fmt.Sprintf("%sit was made with this certificate's key, but over another string than the signing string the gateway built (next message): %s. SHA-256 of the string you signed: %s",
		lead, why, base64.StdEncoding.EncodeToString(rec.Sum))
}

// diagnoseSignature returns the signature check's error e with the
// precise cause and the signing string, when diagnostics are on and e is
// a SIGNATURE_INVALID.
func (v *Verifier) diagnoseSignature(entry *certEntry, r *Request, p *Policy, e *bgerror.Error) *bgerror.Error {
	if e == nil || !v.cfg.Diagnostics || e.Code != bgerror.CodeSignatureInvalid || entry == nil || entry.identity == nil {
		return e
	}
	f := examineSignature(entry, r, p)
	text := f.first()
	if text == "" {
		return e
	}
	d := bgerror.New(e.Code, text)
	d.Path = e.Path
	if f.signing != nil {
		d.More = signingStringMessages(f.signing, f.params.Headers)
	}
	return d
}

// diagnoseDigest returns the Digest check's error e with the digests
// computed over the body received, when diagnostics are on.
func (v *Verifier) diagnoseDigest(h http.Header, body []byte, e *bgerror.Error) *bgerror.Error {
	if e == nil || !v.cfg.Diagnostics {
		return e
	}
	d := bgerror.Format(e.Path, explainDigest(h, body, e.Text))
	d.Status = e.Status
	return d
}

// explainDigest is the diagnostic text of a Digest failure whose plain
// text is text.
func explainDigest(h http.Header, body []byte, text string) string {
	if v := h["Digest"]; len(v) > 0 {
		if d, err := digest.Parse(v[0]); err == nil {
			if why := digest.Explain(d, body); why != "" {
				return why + "; hash exactly the bytes sent"
			}
		}
	}
	return fmt.Sprintf("%s (the body received is %d bytes: its Digest is %s)", strings.TrimSuffix(text, "."), len(body), digest.Of(body))
}

// diagnoseDate returns the Date check's error e with what the Date said
// and the bank's clock, when diagnostics are on.
func (v *Verifier) diagnoseDate(h http.Header, now time.Time, e *bgerror.Error) *bgerror.Error {
	if e == nil || !v.cfg.Diagnostics {
		return e
	}
	d := dateErr(explainDate(h, now, v.cfg.ClockSkew, e.Text))
	d.Status = e.Status
	return d
}

// explainDate is the diagnostic text of a Date failure whose plain text
// is text.
func explainDate(h http.Header, now time.Time, skew time.Duration, text string) string {
	v := h["Date"]
	bank := now.UTC().Format(http.TimeFormat)
	if len(v) == 0 || v[0] == "" {
		return text + " (the bank's clock says " + bank + ")"
	}
	t, err := time.Parse(http.TimeFormat, v[0])
	if err != nil {
		return fmt.Sprintf("the Date header %q is not an IMF-fixdate; send the time as %s (the bank's clock now), in GMT", clipText(v[0], 80), bank)
	}
	off := int64(now.Sub(t).Round(time.Second) / time.Second)
	way := "behind"
	if off < 0 {
		off, way = -off, "ahead of"
	}
	return fmt.Sprintf("the Date header (%s) is %d s %s the bank's clock (%s); at most %s s either way is accepted: synchronise the clock and sign again",
		v[0], off, way, bank, strconv.FormatFloat(skew.Seconds(), 'f', -1, 64))
}
