package testpki

import (
	"bytes"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIssueTPPCertificate(t *testing.T) {
	p := generated(t)
	urls := RevocationURLs{OCSP: "http://127.0.0.1:1/ocsp", CRL: "http://127.0.0.1:1/crl"}
	tests := []struct {
		id      string
		kind    CertificateKind
		urls    RevocationURLs
		issuer  *Authority
		wantErr string
	}{
		{id: "tpp", kind: Seal, urls: urls, issuer: p.Issuing},
		{id: "revoked", kind: Web, urls: urls, issuer: p.Issuing},
		{id: "rsa3072", kind: Seal, urls: RevocationURLs{CRL: urls.CRL}, issuer: p.Issuing},
		{id: "expired", kind: Seal, urls: RevocationURLs{}, issuer: p.Issuing},
		{id: "untrusted", kind: Seal, urls: urls, issuer: p.Impostor},
		{id: "nobody", kind: Seal, urls: urls, wantErr: `no TPP "nobody"`},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			kp, err := p.IssueTPPCertificate(tt.id, tt.kind, tt.urls)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := kp.Certificate
			orig := p.TPP(tt.id).Seal
			if tt.kind == Web {
				orig = p.TPP(tt.id).Web
			}
			if c.SerialNumber.Cmp(orig.Certificate.SerialNumber) == 0 {
				t.Error("same serial as the generated certificate")
			}
			if !bytes.Equal(c.RawSubject, orig.Certificate.RawSubject) || c.KeyUsage != orig.Certificate.KeyUsage ||
				!slices.Equal(c.ExtKeyUsage, orig.Certificate.ExtKeyUsage) || !c.NotAfter.Equal(orig.Certificate.NotAfter) ||
				c.PublicKey.(interface{ Size() int }).Size() != orig.Certificate.PublicKey.(interface{ Size() int }).Size() {
				t.Error("profile, validity or key size differ from the generated certificate's")
			}
			if err := c.CheckSignatureFrom(tt.issuer.Certificate); err != nil {
				t.Errorf("not issued by the TPP's CA: %v", err)
			}
			var wantOCSP, wantCRL []string
			if tt.urls.OCSP != "" {
				wantOCSP = []string{tt.urls.OCSP}
			}
			if tt.urls.CRL != "" {
				wantCRL = []string{tt.urls.CRL}
			}
			if !slices.Equal(c.OCSPServer, wantOCSP) || !slices.Equal(c.CRLDistributionPoints, wantCRL) {
				t.Errorf("OCSP %v CRL %v, want %v %v", c.OCSPServer, c.CRLDistributionPoints, wantOCSP, wantCRL)
			}
		})
	}
	loaded := *p
	loaded.Issuing = &Authority{Certificate: p.Issuing.Certificate}
	if _, err := loaded.IssueTPPCertificate("tpp", Seal, urls); err == nil {
		t.Error("issued without the CA key")
	}
}

func TestCRLDistributionPoint(t *testing.T) {
	p := generated(t)
	d := p.CRLDistributionPoint()
	srv := httptest.NewServer(d)
	defer srv.Close()
	newer, err := p.Issuing.RevocationList(2, nil, genNow, genNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		method   string
		set      *x509.RevocationList
		wantHTTP int
		wantCRL  *x509.RevocationList
	}{
		{name: "GET", method: http.MethodGet, wantHTTP: 200, wantCRL: p.CRL},
		{name: "POST", method: http.MethodPost, wantHTTP: http.StatusMethodNotAllowed},
		{name: "GET after SetCRL", method: http.MethodGet, set: newer, wantHTTP: 200, wantCRL: newer},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.set != nil {
				d.SetCRL(tt.set)
			}
			req, _ := http.NewRequest(tt.method, srv.URL+"/issuing.crl", nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantHTTP {
				t.Fatalf("HTTP %d, want %d", resp.StatusCode, tt.wantHTTP)
			}
			if d.Requests() != int64(i+1) {
				t.Errorf("Requests() = %d, want %d", d.Requests(), i+1)
			}
			if tt.wantCRL == nil {
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/pkix-crl" {
				t.Errorf("Content-Type %q", ct)
			}
			if !bytes.Equal(body, tt.wantCRL.Raw) {
				t.Error("body is not the CRL's DER")
			}
		})
	}
}
