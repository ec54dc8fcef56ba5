package gateway

import (
	"net/http"
	"sync"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/signature"
)

// signingStringPool recycles signing-string buffers.
var signingStringPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// verifySignature checks the Signature header against the cached
// certificate: parameters, keyId, coverage, then the RSA signature over the
// headers as transmitted and target, the request-target of the original
// request line.
func (e *certEntry) verifySignature(r *http.Request, target string, p *Policy) *bgerror.Error {
	vals := r.Header["Signature"]
	if len(vals) == 0 || vals[0] == "" {
		return bgerror.New(bgerror.CodeSignatureMissing, "the Signature header is missing; every request must be signed")
	}
	params, err := signature.Parse(vals[0])
	if err != nil {
		return sigInvalid(err.Error())
	}
	if last := e.keyID.Load(); last == nil || *last != params.KeyID {
		kid, err := signature.ParseKeyID(params.KeyID)
		if err != nil {
			return sigInvalid(err.Error())
		}
		if !kid.Matches(e.identity.Certificate) {
			return sigInvalid("keyId does not identify TPP-Signature-Certificate: SN must be its serial number and CA its issuer DN")
		}
		s := params.KeyID
		e.keyID.Store(&s)
	}
	if err := signature.CheckCoverage(params.Headers, r.Header, p.RequireRequestTarget); err != nil {
		return sigInvalid(err.Error())
	}
	if e.key == nil {
		return sigInvalid("the certificate key is not a usable RSA key; rsa-sha256 needs one")
	}
	bp := signingStringPool.Get().(*[]byte)
	defer signingStringPool.Put(bp)
	ss, err := signature.AppendSigningString((*bp)[:0], params.Headers, r.Method, target, signedHeaders(r, params.Headers))
	*bp = ss[:0]
	if err != nil {
		return sigInvalid(err.Error())
	}
	if err := e.key.Verify(ss, params.Signature); err != nil {
		return sigInvalid("the signature does not verify with the key of TPP-Signature-Certificate over the headers listed")
	}
	return nil
}

// signedHeaders returns the header map to build the signing string from.
// Go's server moves Host out of the map into r.Host; a client that signs
// host (as draft-cavage's examples do) gets it back, as received.
func signedHeaders(r *http.Request, names []string) http.Header {
	if _, ok := r.Header["Host"]; ok {
		return r.Header
	}
	for _, n := range names {
		if n == "host" {
			h := r.Header.Clone()
			h["Host"] = []string{r.Host}
			return h
		}
	}
	return r.Header
}

func sigInvalid(text string) *bgerror.Error {
	e := bgerror.New(bgerror.CodeSignatureInvalid, text)
	e.Path = "Signature"
	return e
}
