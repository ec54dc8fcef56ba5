package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/signature"
)

// Analysis is the sandbox's signature check of one request (Analyse):
// every check the pipeline would make of a real call with the same
// headers and body, each with its verdict and the texts of diagnostics,
// the signing string the gateway built and the Digest it computed.
type Analysis struct {
	// Result is "ok" when no check failed, else "failed".
	Result string `json:"result"`
	// Checks are the checks in the order the pipeline runs them.
	Checks []AnalysisCheck `json:"checks"`
	// SigningString is the signing string the gateway built from the
	// request, lines joined with \n, identifiers shortened as in
	// diagnostic texts; absent when it could not be built.
	SigningString string `json:"signingString,omitempty"`
	// SigningStringSHA256 is the base64 SHA-256 of the signing string as
	// built (identifiers whole), to compare with the client's exactly.
	SigningStringSHA256 string `json:"signingStringSha256,omitempty"`
	// Body is what the gateway computed over the body received; absent
	// when the body was not read.
	Body *BodyAnalysis `json:"body,omitempty"`
}

// AnalysisCheck is one check's verdict.
type AnalysisCheck struct {
	// Check names the check: hygiene, date, certificate, signatureHeader
	// (present and well-formed), keyId, signedHeaders (the Signature's
	// headers list covers what the dialect requires), signature (verifies
	// over the signing string), registry, qwac, replay, digest, body.
	Check string `json:"check"`
	// Status is ok, failed or skipped.
	Status string `json:"status"`
	// Code is the Berlin Group code a real call would get, when failed.
	Code string `json:"code,omitempty"`
	// Path is the header the failure is about, when it is about one.
	Path string `json:"path,omitempty"`
	// Text says what the check found.
	Text string `json:"text,omitempty"`
}

// BodyAnalysis is what the gateway computed over the body.
type BodyAnalysis struct {
	// Bytes is the size of the body received.
	Bytes int `json:"bytes"`
	// Digest is the Digest header value for it: SHA-256=<base64>.
	Digest string `json:"digest"`
	// DigestSHA512 is the same with SHA-512.
	DigestSHA512 string `json:"digestSha512"`
	// Claimed is the Digest header as received (shortened past 200 bytes),
	// when there was one.
	Claimed string `json:"claimed,omitempty"`
}

// Analysis statuses.
const (
	statusOK      = "ok"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// add appends a check's verdict: ok with text when e is nil, else failed
// with e's code, path and text.
func (a *Analysis) add(check string, e *bgerror.Error, okText string) {
	if e == nil {
		a.Checks = append(a.Checks, AnalysisCheck{Check: check, Status: statusOK, Text: clipText(okText, bgerror.MaxTextLength)})
		return
	}
	a.Checks = append(a.Checks, AnalysisCheck{Check: check, Status: statusFailed, Code: e.Code, Path: e.Path, Text: e.Text})
}

// skip appends a check that did not run, and why.
func (a *Analysis) skip(check, why string) {
	a.Checks = append(a.Checks, AnalysisCheck{Check: check, Status: statusSkipped, Text: why})
}

// step appends a step of the signature check.
func (a *Analysis) step(check string, s sigStep, code, notReached string) {
	switch {
	case !s.ran:
		a.skip(check, notReached)
	case s.failed():
		e := bgerror.New(code, s.text)
		e.Path = signingStringPath
		a.add(check, e, "")
	default:
		a.add(check, nil, "")
	}
}

// Analyse checks r as the pipeline would under p, with the texts of
// diagnostics whatever Config.Diagnostics says, and answers every check's
// verdict instead of stopping at the first failure. It executes nothing
// and records nothing: the X-Request-ID is not claimed (the real call may
// use it next), no call is counted against a limit, no context token is
// issued. The body is read (r.ReadBody) and its Digest checked only when
// the signature verifies, as the pipeline does, so that a client that
// cannot sign makes it neither wait for a body nor hold one; the error
// returned is that read's, if it failed.
func (v *Verifier) Analyse(ctx context.Context, r *Request, p *Policy) (*Analysis, *bgerror.Error) {
	a := &Analysis{Result: statusOK}
	w := walk{r: r, p: p, now: v.cfg.Now(), o: &Outcome{}, a: a}
	v.run(ctx, &w)
	if w.readErr != nil {
		return nil, w.readErr
	}
	for _, c := range a.Checks {
		if c.Status == statusFailed {
			a.Result = statusFailed
			break
		}
	}
	return a, nil
}

// describeCertificate says what a verified certificate is.
func describeCertificate(e *certEntry) string {
	id := e.identity
	return fmt.Sprintf("QSealC of %s (%s), roles %s, chains to a trusted QTSP CA, valid until %s; its keyId is %s",
		clipText(id.Name, 80), id.OrganizationIdentifier, strings.Join(id.Roles, " "), id.Certificate.NotAfter.UTC().Format("2006-01-02"), signature.KeyIDFor(id.Certificate))
}
