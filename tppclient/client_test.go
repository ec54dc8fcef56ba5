package tppclient

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// verifyingHandler checks, independently of the gateway, what a signed
// request carries when it arrives, and answers 200 or 400 with the reason.
func verifyingHandler(t *testing.T, wantQWAC string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		fail := func(format string, args ...any) {
			http.Error(w, fmt.Sprintf(format, args...), http.StatusBadRequest)
		}
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		if wantQWAC != "" {
			if len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != wantQWAC {
				fail("no client certificate %q", wantQWAC)
				return
			}
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			fail("read body: %v", err)
			return
		}
		der, err := base64.StdEncoding.DecodeString(r.Header.Get("TPP-Signature-Certificate"))
		if err != nil {
			fail("certificate not base64")
			return
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			fail("certificate: %v", err)
			return
		}
		params := signatureFields(t, r.Header.Get("Signature"))
		var lines []string
		for _, name := range strings.Fields(params["headers"]) {
			if name == "(request-target)" {
				lines = append(lines, name+": "+strings.ToLower(r.Method)+" "+r.RequestURI)
				continue
			}
			lines = append(lines, name+": "+r.Header.Get(name))
		}
		sig, _ := base64.StdEncoding.DecodeString(params["signature"])
		h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		if err := rsa.VerifyPKCS1v15(cert.PublicKey.(*rsa.PublicKey), crypto.SHA256, h[:], sig); err != nil {
			fail("signature: %v", err)
			return
		}
		if len(body) > 0 {
			sum := sha256.Sum256(body)
			if r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
				fail("digest does not match")
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"headers":%q,"contentType":%q,"accept":%q,"psuId":%q}`,
			params["headers"], r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("PSU-ID"))
	}
}

func TestClientOverMutualTLS(t *testing.T) {
	pki := newTestPKI(t)
	signer := &Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw, SignRequestTarget: true}

	srv := httptest.NewUnstartedServer(verifyingHandler(t, "tpp.example.no"))
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(pki.ca)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCAs}
	srv.StartTLS()
	defer srv.Close()

	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	qwac := tls.Certificate{Certificate: [][]byte{pki.leaf.Raw}, PrivateKey: pki.leafKey}
	client := NewClient(signer, NewTLSTransport(roots, &qwac))

	tests := []struct {
		name       string
		method     string
		path       string
		headers    http.Header
		body       string
		wantStatus int
		wantInBody []string
	}{
		{
			name: "POST with body", method: "POST", path: "/v1/payments/sepa-credit-transfers?x=1",
			headers: http.Header{"Psu-Id": {"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}, "TPP-Redirect-URI": {"https://tpp.example.no/cb"}},
			body:    `{"hello": "world"}`, wantStatus: 200,
			wantInBody: []string{`"headers":"(request-target) date digest x-request-id psu-id tpp-redirect-uri"`, `"contentType":"application/json"`, `"accept":"application/json"`},
		},
		{
			name: "GET with a non-ASCII PSU-ID", method: "GET", path: "/v1/accounts",
			headers: http.Header{"PSU-ID": {"Øyvind Ærø"}}, wantStatus: 200,
			wantInBody: []string{`"headers":"(request-target) date x-request-id psu-id"`, `"psuId":"Øyvind Ærø"`},
		},
		{
			name: "given Content-Type is kept", method: "PUT", path: "/v1/tpp-contacts",
			headers: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, body: `{}`, wantStatus: 200,
			wantInBody: []string{`"contentType":"application/json; charset=utf-8"`},
		},
		{name: "redirects are not followed", method: "GET", path: "/redirect", wantStatus: http.StatusFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := client.Do(tt.method, srv.URL+tt.path, tt.headers, []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, got, tt.wantStatus)
			}
			for _, want := range tt.wantInBody {
				if !strings.Contains(string(got), want) {
					t.Errorf("response %s lacks %s", got, want)
				}
			}
		})
	}
}

func TestClientWithoutClientCertificateIsRefusedByMutualTLS(t *testing.T) {
	pki := newTestPKI(t)
	srv := httptest.NewUnstartedServer(verifyingHandler(t, ""))
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(pki.ca)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCAs}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()

	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	client := NewClient(&Signer{Key: pki.leafKey, Certificate: pki.leaf.Raw}, NewTLSTransport(roots, nil))
	resp, err := client.Do("GET", srv.URL+"/v1/accounts", nil, nil)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("request without a QWAC got status %d, want a TLS failure", resp.StatusCode)
	}
}

func TestClientReportsSigningErrors(t *testing.T) {
	client := NewClient(&Signer{}, nil)
	if _, err := client.Do("GET", "https://127.0.0.1:1/v1/accounts", nil, nil); err == nil || !strings.Contains(err.Error(), "no Key") {
		t.Fatalf("Do() = %v, want the signing error", err)
	}
	if _, err := client.Do("GET", "://bad", nil, nil); err == nil {
		t.Fatal("Do() with a bad URL succeeded")
	}
}
