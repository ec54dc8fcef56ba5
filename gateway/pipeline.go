package gateway

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/digest"
	"github.com/obgw/obgw/gateway/replay"
	"github.com/obgw/obgw/gateway/signature"
)

// pipeline is the one definition of the checks and their order: Verify
// walks it to decide a request, and Analyse (the sandbox's signature
// check) walks it to explain one. Each step below is written once, for
// both: verifying, it records the check's decision as the policy's mode
// says and stops the walk on a rejection; analysing, it records the
// verdict with the texts of diagnostics, goes on past failures, and does
// nothing with effects (no request id claimed, no call counted, no token
// issued). CheckRole is decided in the registry's step.
var pipeline = [...]Check{CheckHygiene, CheckDate, CheckCertificate, CheckSignature, CheckRegistry, CheckQWAC, CheckReplay, CheckDigest, CheckLimit}

// walk is one request's way through the pipeline.
type walk struct {
	r   *Request
	p   *Policy
	now time.Time
	// o is the outcome a verification decides.
	o *Outcome
	k clock
	// a is the analysis an Analyse fills; nil when verifying.
	a *Analysis
	// readErr is the body read's error, which ends an analysis.
	readErr *bgerror.Error

	entry   *certEntry     // the certificate's cache entry
	certErr *bgerror.Error // why the certificate failed, if it did
	signed  bool           // the certificate identifies a TPP and the signature verified
}

// run walks the pipeline until a step stops it.
func (v *Verifier) run(ctx context.Context, w *walk) {
	for _, c := range pipeline {
		var stop bool
		switch c {
		case CheckHygiene:
			stop = v.stepHygiene(w)
		case CheckDate:
			stop = v.stepDate(w)
		case CheckCertificate:
			stop = v.stepCertificate(w)
		case CheckSignature:
			stop = v.stepSignature(w)
		case CheckRegistry:
			stop = v.stepRegistry(ctx, w)
		case CheckQWAC:
			stop = v.stepQWAC(w)
		case CheckReplay:
			stop = v.stepReplay(ctx, w)
		case CheckDigest:
			stop = v.stepBody(w)
		case CheckLimit:
			stop = v.stepLimit(ctx, w)
		}
		if stop {
			return
		}
	}
}

// usable reports whether the certificate identifies a TPP.
func (w *walk) usable() bool { return w.entry != nil && w.entry.identity != nil }

// Hygiene: sizes, syntax, formats, required headers.
func (v *Verifier) stepHygiene(w *walk) (stop bool) {
	e := checkHygiene(w.r, w.p)
	if w.a != nil {
		w.a.add("hygiene", e, "the request headers are well-formed")
		return false
	}
	if w.o.record(w.p, CheckHygiene, DecisionPass, e) {
		return true
	}
	w.k.lap(CheckHygiene)
	return false
}

// Date, within the clock skew.
func (v *Verifier) stepDate(w *walk) (stop bool) {
	h := w.r.HTTP.Header
	e := checkDate(h, w.now, v.cfg.ClockSkew)
	if w.a != nil {
		if e != nil {
			w.a.add("date", dateErr(explainDate(h, w.now, v.cfg.ClockSkew, e.Text)), "")
		} else {
			w.a.add("date", nil, "within "+strconv.FormatFloat(v.cfg.ClockSkew.Seconds(), 'f', -1, 64)+" s of the bank's clock")
		}
		return false
	}
	if w.o.record(w.p, CheckDate, DecisionPass, v.diagnoseDate(h, w.now, e)) {
		return true
	}
	w.k.lap(CheckDate)
	return false
}

// Certificate (cached): TPP-Signature-Certificate chains to a trusted
// QTSP, is a QSealC with PSD2 roles, is not revoked.
func (v *Verifier) stepCertificate(w *walk) (stop bool) {
	w.entry, w.certErr = v.certificate(w.r.HTTP.Header, w.now)
	if w.a != nil {
		w.a.add("certificate", w.certErr, "")
		if w.certErr == nil {
			w.a.Checks[len(w.a.Checks)-1].Text = clipText(describeCertificate(w.entry), bgerror.MaxTextLength)
		}
		return false
	}
	o := w.o
	if w.certErr != nil && w.entry.revocationAllowed(w.p) {
		o.allowRevocationUnknown(CheckCertificate)
	} else if o.record(w.p, CheckCertificate, DecisionPass, w.certErr) {
		return true
	}
	if !w.usable() {
		// Nothing to identify the TPP by: every later check depends on it.
		for c := CheckSignature; c < numChecks; c++ {
			o.Decisions[c] = DecisionSkip
		}
		o.Err = bgerror.New(bgerror.CodeCertificateInvalid, "no usable TPP-Signature-Certificate; the request cannot be attributed to a TPP")
		return true
	}
	w.k.lap(CheckCertificate)
	return false
}

// noCertificate is why an analysis skips what needs the TPP identified.
const noCertificate = "needs a certificate that identifies the TPP"

// Signature, before anything is said about the TPP: an unsigned request
// with someone's (public) certificate learns nothing of the register and
// is not attributed to that TPP.
func (v *Verifier) stepSignature(w *walk) (stop bool) {
	if w.a != nil {
		v.analyseSignature(w)
		return false
	}
	o, id := w.o, w.entry.identity
	if o.record(w.p, CheckSignature, DecisionPass, v.diagnoseSignature(w.entry, w.r, w.p, w.entry.verifySignature(w.r.HTTP, w.r.target(), w.p))) {
		return true
	}
	w.k.lap(CheckSignature)
	w.signed = true
	o.TPP = id.OrganizationIdentifier
	o.Context.TPP = id.OrganizationIdentifier
	o.Context.TPPName = id.Name
	o.Context.CertSHA256 = w.entry.fingerprintHex
	return false
}

// analyseSignature answers the signature check step by step (the header,
// keyId, the headers it covers, the signature over the signing string)
// and the signing string the gateway built.
func (v *Verifier) analyseSignature(w *walk) {
	a := w.a
	var f *sigFindings
	if w.usable() {
		f = examineSignature(w.entry, w.r, w.p)
	}
	switch {
	case f == nil:
		for _, c := range []string{"signatureHeader", "keyId", "signedHeaders", "signature"} {
			a.skip(c, noCertificate)
		}
	case f.missing:
		a.add("signatureHeader", bgerror.New(bgerror.CodeSignatureMissing, "the Signature header is missing; every request must be signed"), "")
		for _, c := range []string{"keyId", "signedHeaders", "signature"} {
			a.skip(c, "needs a Signature header")
		}
	default:
		const unparsed = "needs a Signature header that parses"
		a.step("signatureHeader", f.parse, bgerror.CodeSignatureInvalid, "")
		a.step("keyId", f.keyID, bgerror.CodeSignatureInvalid, unparsed)
		a.step("signedHeaders", f.covered, bgerror.CodeSignatureInvalid, unparsed)
		a.step("signature", f.verify, bgerror.CodeSignatureInvalid, unparsed)
		if f.signing != nil {
			a.SigningString = strings.Join(shownSigningString(f.signing, f.params.Headers), "\n")
			a.SigningStringSHA256 = signature.SumBase64(f.signing)
		}
	}
	w.signed = f != nil && f.first() == "" && !f.missing && w.certErr == nil
}

// Registry and role: the TPP is authorised, its redirect host registered,
// and the certificate and the register both grant the route's role.
func (v *Verifier) stepRegistry(ctx context.Context, w *walk) (stop bool) {
	h := w.r.HTTP.Header
	if w.a != nil {
		// Looked up only for a signed request: a request that merely
		// carries a TPP's certificate learns nothing of it.
		if !w.signed {
			w.a.skip("registry", "looked up only for a request whose certificate and signature pass")
			return false
		}
		o := &Outcome{}
		roles, _ := v.registryAndRole(ctx, w.entry.identity, h, w.p, o, &clock{})
		if o.Err == nil {
			w.a.add("registry", nil, fmt.Sprintf("%s is authorised; roles granted: %s", w.entry.identity.OrganizationIdentifier, strings.Join(roles, " ")))
		} else {
			w.a.add("registry", o.Err, "")
		}
		return false
	}
	roles, stop := v.registryAndRole(ctx, w.entry.identity, h, w.p, w.o, &w.k)
	if stop {
		return true
	}
	w.o.Roles = roles
	w.o.Context.Roles = roles
	w.k.lap(CheckRole)
	return false
}

// QWAC over mutual TLS: the client certificate names the QSealC's
// organizationIdentifier, when one is presented or the route demands one.
func (v *Verifier) stepQWAC(w *walk) (stop bool) {
	if w.a != nil {
		switch {
		case w.usable() && (w.r.ClientCertificate != nil || w.p.RequireQWAC):
			_, e := v.checkQWAC(w.r.ClientCertificate, w.entry.identity.OrganizationIdentifier, w.p, w.now)
			w.a.add("qwac", e, "the QWAC names the QSealC's organizationIdentifier")
		case w.usable():
			w.a.skip("qwac", "no TLS client certificate presented; this route does not demand one")
		default:
			w.a.skip("qwac", noCertificate)
		}
		return false
	}
	o := w.o
	if d, e := v.checkQWAC(w.r.ClientCertificate, w.entry.identity.OrganizationIdentifier, w.p, w.now); e == nil && d == DecisionErrorAllowed {
		o.allowRevocationUnknown(CheckQWAC)
	} else if o.record(w.p, CheckQWAC, d, e) {
		return true
	}
	w.k.lap(CheckQWAC)
	return false
}

// Replay, recorded only for requests whose signature was checked, so a
// forger cannot burn a TPP's request ids; before the body is read, so one
// signed set of headers cannot hold many bodies open. An analysis records
// nothing: the X-Request-ID stays free for the real call.
func (v *Verifier) stepReplay(ctx context.Context, w *walk) (stop bool) {
	if w.a != nil {
		w.a.skip("replay", "not recorded: the X-Request-ID stays unused for your real call")
		return false
	}
	o, h, p := w.o, w.r.HTTP.Header, w.p
	key := replay.Key(w.entry.identity.OrganizationIdentifier, h.Get("X-Request-Id"), h.Get("Date"))
	fresh, err := v.cfg.Replay.Claim(ctx, key, v.replayTT)
	local := false
	if err != nil && p.ReplayOnError == OnErrorAllow && v.cfg.ReplayFallback != nil {
		o.Context.Unverified = append(o.Context.Unverified, ReplayLocal)
		fresh, err = v.cfg.ReplayFallback.Claim(ctx, key, v.replayTT)
		local = true
	}
	switch {
	case err == nil && fresh && local:
		// Let through by on_error allow, checked in this instance's
		// memory only: the metric says so, as the token does.
		o.Decisions[CheckReplay] = DecisionErrorAllowed
	case err != nil && p.ReplayOnError == OnErrorAllow:
		o.Decisions[CheckReplay] = DecisionErrorAllowed
		o.Context.Unverified = append(o.Context.Unverified, "replay:error_allowed")
	case err != nil:
		o.Decisions[CheckReplay] = DecisionFail
		o.Err = bgerror.New(bgerror.CodeServiceUnavailable, "replay protection is unavailable; retry later with a new X-Request-ID")
		return true
	case !fresh:
		e := bgerror.Format("X-Request-ID", "X-Request-ID was already used by this TPP (replay); send every request with a new UUID")
		if o.fail(p, CheckReplay, e) {
			return true
		}
	default:
		o.Decisions[CheckReplay] = DecisionPass
	}
	w.k.lap(CheckReplay)
	return false
}

// The body, read only now, then Digest over the exact bytes received and
// the JSON rules of hygiene. An analysis reads it only for a signed
// request too, and says what the gateway computed over it.
func (v *Verifier) stepBody(w *walk) (stop bool) {
	r, h, p := w.r, w.r.HTTP.Header, w.p
	if w.a != nil && !w.signed {
		const unread = "the body is read only once the certificate and the signature pass"
		w.a.skip("digest", unread)
		w.a.skip("body", unread)
		return false
	}
	if r.ReadBody != nil {
		body, e := r.ReadBody(w.entry.identity.OrganizationIdentifier)
		if e != nil {
			if w.a != nil {
				w.readErr = e
				return true
			}
			w.o.Decisions[CheckHygiene] = DecisionFail
			w.o.Err = e
			return true
		}
		r.Body = body
	}
	d, e := checkDigest(h, r.Body, p)
	if w.a != nil {
		v.analyseBody(w, d, e)
		return false
	}
	if w.o.record(p, CheckDigest, d, v.diagnoseDigest(h, r.Body, e)) {
		return true
	}
	if e := checkBody(h, r.Body); e != nil && w.o.fail(p, CheckHygiene, e) {
		return true
	}
	w.k.lap(CheckDigest)
	return false
}

// analyseBody answers the Digest (d, e: checkDigest's verdict) and the
// body's checks, and what the gateway computed over the body.
func (v *Verifier) analyseBody(w *walk, d Decision, e *bgerror.Error) {
	a, h, body := w.a, w.r.HTTP.Header, w.r.Body
	if e != nil {
		e = bgerror.Format(e.Path, explainDigest(h, body, e.Text))
	}
	if e == nil && d == DecisionSkip {
		a.skip("digest", "no Digest header and no body")
	} else {
		a.add("digest", e, "the Digest matches the body")
	}
	bodyText := "no body"
	if len(body) > 0 {
		bodyText = "JSON within the bounds of the interface"
	}
	a.add("body", checkBody(h, body), bodyText)
	sum := sha512.Sum512(body)
	a.Body = &BodyAnalysis{Bytes: len(body), Digest: digest.Of(body), DigestSHA512: "SHA-512=" + base64.StdEncoding.EncodeToString(sum[:])}
	if v := h["Digest"]; len(v) > 0 {
		a.Body.Claimed = clipText(v[0], 200)
	}
}

// PSU-not-present limit, last, so that only calls that would be served
// are counted. The context token's request fields are set here, once
// every check of the request itself has passed. An analysis counts
// nothing.
func (v *Verifier) stepLimit(ctx context.Context, w *walk) (stop bool) {
	if w.a != nil {
		return false
	}
	o, r, h, p := w.o, w.r, w.r.HTTP.Header, w.p
	o.Context.RequestID = h.Get("X-Request-Id")
	o.Context.Method = r.HTTP.Method
	o.Context.Path = r.HTTP.URL.Path
	o.Context.PSUID = h.Get("Psu-Id")
	o.Context.PSUCorporateID = h.Get("Psu-Corporate-Id")
	o.Context.PSUPresent = h.Get("Psu-Ip-Address") != ""
	o.Context.Fixes = r.Fixes
	if p.LimitKind != "" && !o.Context.PSUPresent {
		if e := v.checkLimit(ctx, r, p, o, w.now); e != nil && o.fail(p, CheckLimit, e) {
			return true
		}
	} else {
		o.Decisions[CheckLimit] = DecisionSkip
	}
	w.k.lap(CheckLimit)
	return false
}
