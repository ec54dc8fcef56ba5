package testpki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	// Hash functions a request's CertID may name.
	_ "crypto/sha1"
	_ "crypto/sha256"
	_ "crypto/sha512"
)

// OCSP object identifiers (RFC 6960, RFC 8954).
var (
	// OIDOCSPNonce is id-pkix-ocsp-nonce, the request and response
	// extension that binds a response to one request.
	OIDOCSPNonce = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 2}
	// OIDOCSPNoCheck is id-pkix-ocsp-nocheck, put in delegated responder
	// certificates.
	OIDOCSPNoCheck = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 5}

	oidOCSPBasic       = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 1}
	oidSHA256WithRSA   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 11}
	oidECDSAWithSHA256 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
)

// ocspCertIDHashes are the hash algorithms a CertID may use.
var ocspCertIDHashes = []struct {
	oid  asn1.ObjectIdentifier
	hash crypto.Hash
}{
	{asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}, crypto.SHA1},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}, crypto.SHA256},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}, crypto.SHA384},
	{asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}, crypto.SHA512},
}

// OCSP responseStatus values other than successful (RFC 6960 4.2.1), for
// OCSPResponder.ResponseStatus.
const (
	OCSPMalformedRequest = 1
	OCSPInternalError    = 2
	OCSPTryLater         = 3
	OCSPSigRequired      = 5
	OCSPUnauthorized     = 6
)

// Media types of RFC 6960 appendix A.
const (
	ocspRequestType  = "application/ocsp-request"
	ocspResponseType = "application/ocsp-response"
)

// DefaultOCSPValidity is the nextUpdate - thisUpdate of an OCSPResponder's
// answers when its Validity is zero.
const DefaultOCSPValidity = time.Hour

// maxOCSPRequest bounds the request bodies an OCSPResponder reads.
const maxOCSPRequest = 16 << 10

// OCSPResponder is an http.Handler answering RFC 6960 OCSP requests, sent
// by POST or GET, about the certificates of one CA. It is written from
// the RFC, independently of the OCSP code it tests. Set its fields before
// serving; they are read without locking.
type OCSPResponder struct {
	// Issuer is the CA answered for. A CertID that does not name it (by
	// name and key hash) is answered "unknown".
	Issuer *x509.Certificate
	// Key signs the responses: Issuer's key, or a delegated responder's
	// (see Certificate). Any other key makes the responses fail
	// verification, which tests use. Nil answers internalError.
	Key crypto.Signer
	// Certificate, if set, is the delegated responder certificate of Key
	// (IssueOCSPSigner): it names the responder and is embedded in every
	// response. Nil names Issuer and embeds nothing.
	Certificate *x509.Certificate
	// Revoked are the certificates answered "revoked", with the
	// revocation time and reason given.
	Revoked []x509.RevocationListEntry
	// Unknown are serial numbers answered "unknown" although the CertID
	// names Issuer.
	Unknown []*big.Int
	// ResponseStatus, if not zero, is sent instead of a signed response,
	// e.g. OCSPTryLater.
	ResponseStatus int
	// Now returns thisUpdate and producedAt; nil means time.Now.
	Now func() time.Time
	// Validity is nextUpdate - thisUpdate; zero means
	// DefaultOCSPValidity.
	Validity time.Duration
	// OmitNextUpdate leaves nextUpdate out ("newer information is always
	// available").
	OmitNextUpdate bool
	// OmitNonce ignores a request's nonce extension, as responders that
	// serve pre-signed responses do.
	OmitNonce bool
	// Nonce, if set, is the value of the nonce extension of every
	// response, instead of the request's: a wrong nonce, for tests.
	Nonce []byte

	requests atomic.Int64
}

// Requests returns the number of HTTP requests served so far.
func (r *OCSPResponder) Requests() int64 { return r.requests.Load() }

// ServeHTTP answers a POST whose body is a DER OCSPRequest of Content-Type
// application/ocsp-request, or a GET whose last path segment is the
// URL-escaped base64 of one. Undecodable requests get a malformedRequest
// response.
func (r *OCSPResponder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.requests.Add(1)
	var der []byte
	switch req.Method {
	case http.MethodPost:
		if ct := req.Header.Get("Content-Type"); ct != ocspRequestType {
			http.Error(w, "Content-Type must be "+ocspRequestType, http.StatusUnsupportedMediaType)
			return
		}
		b, err := io.ReadAll(io.LimitReader(req.Body, maxOCSPRequest+1))
		if err == nil && len(b) <= maxOCSPRequest {
			der = b
		}
	case http.MethodGet:
		p := req.URL.EscapedPath()
		p = p[strings.LastIndexByte(p, '/')+1:]
		if s, err := url.PathUnescape(p); err == nil {
			der, _ = base64.StdEncoding.DecodeString(s)
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "OCSP requests are sent by GET or POST", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", ocspResponseType)
	_, _ = w.Write(r.Respond(der))
}

// Respond returns the DER OCSPResponse to a DER OCSPRequest: a signed
// basic response with one answer per requested certificate, echoing the
// request's nonce; or a malformedRequest response if request does not
// decode, or internalError if signing fails.
func (r *OCSPResponder) Respond(request []byte) []byte {
	if r.ResponseStatus != 0 {
		return ocspErrorResponse(r.ResponseStatus)
	}
	var req ocspRequest
	if rest, err := asn1.Unmarshal(request, &req); err != nil || len(rest) != 0 || len(req.TBSRequest.RequestList) == 0 {
		return ocspErrorResponse(OCSPMalformedRequest)
	}
	if r.Key == nil || r.Issuer == nil {
		return ocspErrorResponse(OCSPInternalError)
	}
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	now = now.UTC().Truncate(time.Second)
	signer := r.Issuer
	if r.Certificate != nil {
		signer = r.Certificate
	}
	data := ocspResponseData{
		ResponderID: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 1, IsCompound: true, Bytes: signer.RawSubject},
		ProducedAt:  now,
	}
	for _, sr := range req.TBSRequest.RequestList {
		data.Responses = append(data.Responses, r.answer(sr.ReqCert, now))
	}
	nonce := r.Nonce
	if nonce == nil && !r.OmitNonce {
		for _, e := range req.TBSRequest.RequestExtensions {
			if e.Id.Equal(OIDOCSPNonce) {
				nonce = e.Value
			}
		}
	}
	if nonce != nil {
		data.ResponseExtensions = []pkix.Extension{{Id: OIDOCSPNonce, Value: nonce}}
	}
	resp, err := r.sign(data)
	if err != nil {
		return ocspErrorResponse(OCSPInternalError)
	}
	return resp
}

// answer returns the status of the certificate id names.
func (r *OCSPResponder) answer(id ocspCertID, now time.Time) ocspSingleResponse {
	s := ocspSingleResponse{CertID: id, ThisUpdate: now}
	if !r.OmitNextUpdate {
		v := r.Validity
		if v == 0 {
			v = DefaultOCSPValidity
		}
		s.NextUpdate = now.Add(v)
	}
	if !r.names(id) || id.SerialNumber == nil {
		s.Unknown = true
		return s
	}
	for _, u := range r.Unknown {
		if u.Cmp(id.SerialNumber) == 0 {
			s.Unknown = true
			return s
		}
	}
	for _, e := range r.Revoked {
		if e.SerialNumber.Cmp(id.SerialNumber) == 0 {
			s.Revoked = ocspRevokedInfo{RevocationTime: e.RevocationTime.UTC().Truncate(time.Second), Reason: asn1.Enumerated(e.ReasonCode)}
			return s
		}
	}
	s.Good = true
	return s
}

// names reports whether id's issuer name and key hashes are Issuer's.
func (r *OCSPResponder) names(id ocspCertID) bool {
	var h crypto.Hash
	for _, c := range ocspCertIDHashes {
		if c.oid.Equal(id.HashAlgorithm.Algorithm) {
			h = c.hash
		}
	}
	if h == 0 {
		return false
	}
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(r.Issuer.RawSubjectPublicKeyInfo, &spki); err != nil {
		return false
	}
	sum := func(b []byte) []byte {
		d := h.New()
		d.Write(b)
		return d.Sum(nil)
	}
	return bytes.Equal(id.NameHash, sum(r.Issuer.RawSubject)) && bytes.Equal(id.KeyHash, sum(spki.PublicKey.RightAlign()))
}

// sign signs data with Key using SHA-256 and wraps it in a successful
// OCSPResponse.
func (r *OCSPResponder) sign(data ocspResponseData) ([]byte, error) {
	tbs, err := asn1.Marshal(data)
	if err != nil {
		return nil, err
	}
	var alg pkix.AlgorithmIdentifier
	switch r.Key.Public().(type) {
	case *rsa.PublicKey:
		alg = pkix.AlgorithmIdentifier{Algorithm: oidSHA256WithRSA, Parameters: asn1.NullRawValue}
	case *ecdsa.PublicKey:
		alg = pkix.AlgorithmIdentifier{Algorithm: oidECDSAWithSHA256}
	default:
		return nil, fmt.Errorf("testpki: OCSP responder key %T is not RSA or ECDSA", r.Key.Public())
	}
	d := crypto.SHA256.New()
	d.Write(tbs)
	sig, err := r.Key.Sign(rand.Reader, d.Sum(nil), crypto.SHA256)
	if err != nil {
		return nil, err
	}
	basic := ocspBasicResponse{
		TBSResponseData:    asn1.RawValue{FullBytes: tbs},
		SignatureAlgorithm: alg,
		Signature:          asn1.BitString{Bytes: sig, BitLength: 8 * len(sig)},
	}
	if r.Certificate != nil {
		basic.Certificates = []asn1.RawValue{{FullBytes: r.Certificate.Raw}}
	}
	basicDER, err := asn1.Marshal(basic)
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(ocspResponse{
		Status:   0,
		Response: ocspResponseBytes{ResponseType: oidOCSPBasic, Response: basicDER},
	})
}

// ocspErrorResponse returns an unsigned OCSPResponse of status.
func ocspErrorResponse(status int) []byte {
	b, _ := asn1.Marshal(ocspResponse{Status: asn1.Enumerated(status)})
	return b
}

// IssueOCSPSigner issues a delegated OCSP responder certificate (RFC 6960
// 4.2.2.2) with a fresh RSA-2048 key, valid from notBefore to notAfter,
// with key usage digitalSignature, the id-pkix-ocsp-nocheck extension and
// the extended key usages ekus: pass x509.ExtKeyUsageOCSPSigning for a
// proper one, anything else to check that relying parties refuse it.
func (a *Authority) IssueOCSPSigner(notBefore, notAfter time.Time, ekus ...x509.ExtKeyUsage) (*KeyPair, error) {
	serial, err := NewSerial()
	if err != nil {
		return nil, err
	}
	subject := a.Certificate.Subject
	subject.CommonName += " OCSP Responder"
	subject.ExtraNames = nil
	return a.IssueKeyPair(&x509.Certificate{
		SerialNumber:    serial,
		Subject:         subject,
		NotBefore:       notBefore,
		NotAfter:        notAfter,
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtKeyUsage:     ekus,
		ExtraExtensions: []pkix.Extension{{Id: OIDOCSPNoCheck, Value: asn1.NullBytes}},
	}, 2048)
}

// The ASN.1 of RFC 6960 section 4.

type ocspCertID struct {
	HashAlgorithm pkix.AlgorithmIdentifier
	NameHash      []byte
	KeyHash       []byte
	SerialNumber  *big.Int
}

type ocspRequest struct {
	TBSRequest        ocspTBSRequest
	OptionalSignature asn1.RawValue `asn1:"explicit,tag:0,optional"`
}

type ocspTBSRequest struct {
	Version           int           `asn1:"explicit,tag:0,default:0,optional"`
	RequestorName     asn1.RawValue `asn1:"explicit,tag:1,optional"`
	RequestList       []ocspSingleRequest
	RequestExtensions []pkix.Extension `asn1:"explicit,tag:2,optional"`
}

type ocspSingleRequest struct {
	ReqCert    ocspCertID
	Extensions []pkix.Extension `asn1:"explicit,tag:0,optional"`
}

type ocspResponse struct {
	Status   asn1.Enumerated
	Response ocspResponseBytes `asn1:"explicit,tag:0,optional"`
}

type ocspResponseBytes struct {
	ResponseType asn1.ObjectIdentifier
	Response     []byte
}

type ocspBasicResponse struct {
	TBSResponseData    asn1.RawValue
	SignatureAlgorithm pkix.AlgorithmIdentifier
	Signature          asn1.BitString
	Certificates       []asn1.RawValue `asn1:"explicit,tag:0,optional"`
}

// ocspResponseData leaves out version, whose only value v1 is the default.
type ocspResponseData struct {
	ResponderID        asn1.RawValue
	ProducedAt         time.Time `asn1:"generalized"`
	Responses          []ocspSingleResponse
	ResponseExtensions []pkix.Extension `asn1:"explicit,tag:1,optional"`
}

type ocspSingleResponse struct {
	CertID     ocspCertID
	Good       asn1.Flag       `asn1:"tag:0,optional"`
	Revoked    ocspRevokedInfo `asn1:"tag:1,optional"`
	Unknown    asn1.Flag       `asn1:"tag:2,optional"`
	ThisUpdate time.Time       `asn1:"generalized"`
	NextUpdate time.Time       `asn1:"generalized,explicit,tag:0,optional"`
}

type ocspRevokedInfo struct {
	RevocationTime time.Time       `asn1:"generalized"`
	Reason         asn1.Enumerated `asn1:"explicit,tag:0,optional"`
}
