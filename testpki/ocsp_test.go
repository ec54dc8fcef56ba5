package testpki

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ocsp"
)

// The responder is checked with golang.org/x/crypto/ocsp, written
// independently of it.

func TestOCSPResponderRespond(t *testing.T) {
	p := generated(t)
	good := p.TPP("tpp").Seal.Certificate
	revoked := p.TPP("revoked").Seal.Certificate
	signer, err := p.Issuing.IssueOCSPSigner(genNow.Add(-time.Hour), genNow.AddDate(1, 0, 0), x509.ExtKeyUsageOCSPSigning)
	if err != nil {
		t.Fatal(err)
	}
	at := genNow.Add(-10 * time.Minute).UTC().Truncate(time.Second)
	tests := []struct {
		name         string
		edit         func(r *OCSPResponder)
		cert, issuer *x509.Certificate
		hash         crypto.Hash
		wantStatus   int
		wantError    ocsp.ResponseStatus // not Success: an unsigned error response
		wantSigner   *x509.Certificate   // embedded responder certificate
		wantValidity time.Duration       // nextUpdate - thisUpdate; -1: none
	}{
		{name: "good", cert: good, issuer: p.Issuing.Certificate, wantStatus: ocsp.Good, wantValidity: DefaultOCSPValidity},
		{name: "good, SHA-256 CertID", cert: good, issuer: p.Issuing.Certificate, hash: crypto.SHA256, wantStatus: ocsp.Good, wantValidity: DefaultOCSPValidity},
		{name: "revoked from the CRL", cert: revoked, issuer: p.Issuing.Certificate, wantStatus: ocsp.Revoked, wantValidity: DefaultOCSPValidity},
		{name: "listed unknown", edit: func(r *OCSPResponder) { r.Unknown = []*big.Int{good.SerialNumber} }, cert: good, issuer: p.Issuing.Certificate, wantStatus: ocsp.Unknown, wantValidity: DefaultOCSPValidity},
		{name: "other CA's certificate", cert: p.Issuing.Certificate, issuer: p.Root.Certificate, wantStatus: ocsp.Unknown, wantValidity: DefaultOCSPValidity},
		{name: "delegated signer", edit: func(r *OCSPResponder) { r.Key, r.Certificate = signer.Key, signer.Certificate }, cert: good, issuer: p.Issuing.Certificate, wantStatus: ocsp.Good, wantSigner: signer.Certificate, wantValidity: DefaultOCSPValidity},
		{name: "validity and clock", edit: func(r *OCSPResponder) { r.Validity = 10 * time.Minute; r.Now = func() time.Time { return at } }, cert: good, issuer: p.Issuing.Certificate, wantStatus: ocsp.Good, wantValidity: 10 * time.Minute},
		{name: "no nextUpdate", edit: func(r *OCSPResponder) { r.OmitNextUpdate = true }, cert: good, issuer: p.Issuing.Certificate, wantStatus: ocsp.Good, wantValidity: -1},
		{name: "try later", edit: func(r *OCSPResponder) { r.ResponseStatus = OCSPTryLater }, cert: good, issuer: p.Issuing.Certificate, wantError: ocsp.TryLater},
		{name: "no key", edit: func(r *OCSPResponder) { r.Key = nil }, cert: good, issuer: p.Issuing.Certificate, wantError: ocsp.InternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.OCSPResponder()
			if tt.edit != nil {
				tt.edit(r)
			}
			req, err := ocsp.CreateRequest(tt.cert, tt.issuer, &ocsp.RequestOptions{Hash: tt.hash})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ocsp.ParseResponseForCert(r.Respond(req), tt.cert, p.Issuing.Certificate)
			if tt.wantError != ocsp.Success {
				if re, ok := err.(ocsp.ResponseError); !ok || re.Status != tt.wantError {
					t.Fatalf("error %v, want response status %v", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != tt.wantStatus || resp.SerialNumber.Cmp(tt.cert.SerialNumber) != 0 {
				t.Errorf("status %d for serial %x, want %d for %x", resp.Status, resp.SerialNumber, tt.wantStatus, tt.cert.SerialNumber)
			}
			if tt.hash != 0 && resp.IssuerHash != tt.hash {
				t.Errorf("CertID hash %v, want the request's %v", resp.IssuerHash, tt.hash)
			}
			if (resp.Certificate == nil) != (tt.wantSigner == nil) || resp.Certificate != nil && !resp.Certificate.Equal(tt.wantSigner) {
				t.Errorf("embedded certificate %v, want %v", resp.Certificate != nil, tt.wantSigner != nil)
			}
			if r.Now != nil && !resp.ThisUpdate.Equal(at) {
				t.Errorf("thisUpdate %v, want %v", resp.ThisUpdate, at)
			}
			if tt.wantValidity < 0 {
				if !resp.NextUpdate.IsZero() {
					t.Errorf("nextUpdate %v, want none", resp.NextUpdate)
				}
			} else if got := resp.NextUpdate.Sub(resp.ThisUpdate); got != tt.wantValidity {
				t.Errorf("nextUpdate - thisUpdate = %v, want %v", got, tt.wantValidity)
			}
			if tt.wantStatus == ocsp.Revoked {
				e := p.CRL.RevokedCertificateEntries[0]
				if !resp.RevokedAt.Equal(e.RevocationTime.Truncate(time.Second)) || resp.RevocationReason != e.ReasonCode {
					t.Errorf("revoked at %v for %d, want %v for %d", resp.RevokedAt, resp.RevocationReason, e.RevocationTime, e.ReasonCode)
				}
			}
		})
	}
}

func TestOCSPResponderWrongKey(t *testing.T) {
	p := generated(t)
	r := p.OCSPResponder()
	r.Key = p.Impostor.Key
	cert := p.TPP("tpp").Seal.Certificate
	req, err := ocsp.CreateRequest(cert, p.Issuing.Certificate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ocsp.ParseResponseForCert(r.Respond(req), cert, p.Issuing.Certificate); err == nil {
		t.Fatal("a response signed by another key verified against the issuing CA")
	}
}

// nonceRequest returns a request for cert carrying nonce.
func nonceRequest(t *testing.T, cert, issuer *x509.Certificate, nonce []byte) []byte {
	t.Helper()
	plain, err := ocsp.CreateRequest(cert, issuer, nil)
	if err != nil {
		t.Fatal(err)
	}
	var req ocspRequest
	if _, err := asn1.Unmarshal(plain, &req); err != nil {
		t.Fatal(err)
	}
	req.TBSRequest.RequestExtensions = []pkix.Extension{{Id: OIDOCSPNonce, Value: nonce}}
	der, err := asn1.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// responseNonce returns the nonce extension of a successful response.
func responseNonce(t *testing.T, der []byte, issuer *x509.Certificate) []byte {
	t.Helper()
	resp, err := ocsp.ParseResponse(der, issuer)
	if err != nil {
		t.Fatal(err)
	}
	var data ocspResponseData
	if _, err := asn1.Unmarshal(resp.TBSResponseData, &data); err != nil {
		t.Fatal(err)
	}
	var nonce []byte
	for _, e := range data.ResponseExtensions {
		if e.Id.Equal(OIDOCSPNonce) {
			nonce = e.Value
		}
	}
	return nonce
}

func TestOCSPResponderNonce(t *testing.T) {
	p := generated(t)
	cert := p.TPP("tpp").Seal.Certificate
	sent := []byte{0x04, 0x03, 1, 2, 3}
	wrong := []byte{0x04, 0x03, 9, 9, 9}
	tests := []struct {
		name string
		edit func(r *OCSPResponder)
		sent []byte
		want []byte
	}{
		{name: "echoed", sent: sent, want: sent},
		{name: "none asked", sent: nil, want: nil},
		{name: "ignored", edit: func(r *OCSPResponder) { r.OmitNonce = true }, sent: sent, want: nil},
		{name: "replaced", edit: func(r *OCSPResponder) { r.Nonce = wrong }, sent: sent, want: wrong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.OCSPResponder()
			if tt.edit != nil {
				tt.edit(r)
			}
			req, err := ocsp.CreateRequest(cert, p.Issuing.Certificate, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.sent != nil {
				req = nonceRequest(t, cert, p.Issuing.Certificate, tt.sent)
			}
			if got := responseNonce(t, r.Respond(req), p.Issuing.Certificate); !bytes.Equal(got, tt.want) {
				t.Errorf("nonce %x, want %x", got, tt.want)
			}
		})
	}
}

func TestOCSPResponderHTTP(t *testing.T) {
	p := generated(t)
	r := p.OCSPResponder()
	srv := httptest.NewServer(r)
	defer srv.Close()
	cert := p.TPP("revoked").Web.Certificate
	req, err := ocsp.CreateRequest(cert, p.Issuing.Certificate, nil)
	if err != nil {
		t.Fatal(err)
	}
	getURL := srv.URL + "/ocsp/" + url.PathEscape(base64.StdEncoding.EncodeToString(req))
	tests := []struct {
		name, method, url, contentType string
		body                           []byte
		wantHTTP                       int
		wantOCSP                       ocsp.ResponseStatus // for 200
	}{
		{name: "POST", method: http.MethodPost, url: srv.URL + "/ocsp", contentType: ocspRequestType, body: req, wantHTTP: 200},
		{name: "GET", method: http.MethodGet, url: getURL, wantHTTP: 200},
		{name: "wrong content type", method: http.MethodPost, url: srv.URL, contentType: "application/octet-stream", body: req, wantHTTP: http.StatusUnsupportedMediaType},
		{name: "PUT", method: http.MethodPut, url: srv.URL, contentType: ocspRequestType, body: req, wantHTTP: http.StatusMethodNotAllowed},
		{name: "garbage", method: http.MethodPost, url: srv.URL, contentType: ocspRequestType, body: []byte("not DER"), wantHTTP: 200, wantOCSP: ocsp.Malformed},
		{name: "GET, not base64", method: http.MethodGet, url: srv.URL + "/ocsp/not-base64!", wantHTTP: 200, wantOCSP: ocsp.Malformed},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hreq, err := http.NewRequest(tt.method, tt.url, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.contentType != "" {
				hreq.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := srv.Client().Do(hreq)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantHTTP {
				t.Fatalf("HTTP %d, want %d", resp.StatusCode, tt.wantHTTP)
			}
			if got := r.Requests(); got != int64(i+1) {
				t.Errorf("Requests() = %d, want %d", got, i+1)
			}
			if tt.wantHTTP != 200 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != ocspResponseType {
				t.Errorf("Content-Type %q", ct)
			}
			parsed, err := ocsp.ParseResponseForCert(body, cert, p.Issuing.Certificate)
			if tt.wantOCSP != ocsp.Success {
				if re, ok := err.(ocsp.ResponseError); !ok || re.Status != tt.wantOCSP {
					t.Fatalf("error %v, want %v", err, tt.wantOCSP)
				}
				return
			}
			if err != nil || parsed.Status != ocsp.Revoked {
				t.Fatalf("response %v, %v; want revoked", parsed, err)
			}
		})
	}
}

func TestIssueOCSPSigner(t *testing.T) {
	p := generated(t)
	for _, ekus := range [][]x509.ExtKeyUsage{{x509.ExtKeyUsageOCSPSigning}, {x509.ExtKeyUsageClientAuth}, nil} {
		kp, err := p.Issuing.IssueOCSPSigner(genNow, genNow.Add(time.Hour), ekus...)
		if err != nil {
			t.Fatal(err)
		}
		c := kp.Certificate
		if err := c.CheckSignatureFrom(p.Issuing.Certificate); err != nil {
			t.Errorf("not signed by the issuing CA: %v", err)
		}
		if !slices.Equal(c.ExtKeyUsage, ekus) || c.KeyUsage != x509.KeyUsageDigitalSignature || c.IsCA {
			t.Errorf("EKU %v KU %b CA %v, want EKU %v", c.ExtKeyUsage, c.KeyUsage, c.IsCA, ekus)
		}
		if !strings.HasSuffix(c.Subject.CommonName, " OCSP Responder") || !c.NotAfter.Equal(genNow.Add(time.Hour).Truncate(time.Second)) {
			t.Errorf("subject %q, NotAfter %v", c.Subject.CommonName, c.NotAfter)
		}
		if !slices.ContainsFunc(c.Extensions, func(e pkix.Extension) bool { return e.Id.Equal(OIDOCSPNoCheck) }) {
			t.Error("no id-pkix-ocsp-nocheck extension")
		}
	}
}

// FuzzOCSPResponderRespond checks that any request gets a well-formed
// response: an unsigned error, or a basic response signed by the issuing
// CA with one answer per requested certificate.
func FuzzOCSPResponderRespond(f *testing.F) {
	p := generated(f)
	r := p.OCSPResponder()
	for _, id := range []string{"tpp", "revoked"} {
		req, err := ocsp.CreateRequest(p.TPP(id).Seal.Certificate, p.Issuing.Certificate, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(req)
	}
	f.Fuzz(func(t *testing.T, request []byte) {
		var resp ocspResponse
		if rest, err := asn1.Unmarshal(r.Respond(request), &resp); err != nil || len(rest) != 0 {
			t.Fatalf("response does not decode: %v", err)
		}
		if resp.Status != 0 {
			if resp.Status != OCSPMalformedRequest || resp.Response.Response != nil {
				t.Fatalf("error response of status %d with body %v", resp.Status, resp.Response.Response != nil)
			}
			return
		}
		var req ocspRequest
		if _, err := asn1.Unmarshal(request, &req); err != nil {
			t.Fatal("answered a request that does not decode")
		}
		var basic ocspBasicResponse
		if _, err := asn1.Unmarshal(resp.Response.Response, &basic); err != nil || !resp.Response.ResponseType.Equal(oidOCSPBasic) {
			t.Fatalf("basic response does not decode: %v", err)
		}
		if err := p.Issuing.Certificate.CheckSignature(x509.SHA256WithRSA, basic.TBSResponseData.FullBytes, basic.Signature.Bytes); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var data ocspResponseData
		if _, err := asn1.Unmarshal(basic.TBSResponseData.FullBytes, &data); err != nil {
			t.Fatalf("ResponseData does not decode: %v", err)
		}
		if len(data.Responses) != len(req.TBSRequest.RequestList) {
			t.Fatalf("%d answers to %d questions", len(data.Responses), len(req.TBSRequest.RequestList))
		}
	})
}
