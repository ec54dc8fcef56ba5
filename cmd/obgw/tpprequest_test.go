package main

import (
	"bytes"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/seal"
	"github.com/obgw/obgw/testpki"
	"github.com/obgw/obgw/tppclient"
)

// pkiDir is the committed test PKI, as 'make run' uses it.
var pkiDir = filepath.Join("..", "..", "testdata", "pki")

// gatewayStandIn serves handler over TLS with the test PKI's server
// certificate (localhost, 127.0.0.1), which tls-ca.pem signs, as the
// gateway of 'make run' does.
func gatewayStandIn(t *testing.T, handler http.Handler) *httptest.Server {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "server.pem"), filepath.Join(pkiDir, "server-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestTPPRequestExitStatus: any answer received is a success, a 401 as
// the README's first example gets included, and is printed; with --fail an
// answer of 400 or more exits 22. Neither returns an error, which Caddy's
// command runner would log at error level.
func TestTPPRequestExitStatus(t *testing.T) {
	const consentInvalid = `{"tppMessages":[{"category":"ERROR","code":"CONSENT_INVALID"}]}`
	srv := gatewayStandIn(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Signature") == "" || r.Header.Get("TPP-Signature-Certificate") == "" {
			http.Error(w, "unsigned", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/accounts" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(consentInvalid))
			return
		}
		w.Write([]byte(`{"customers":[]}`))
	}))
	for _, tc := range []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string
		wantErrOut string
	}{
		{"401 is an answer", []string{"GET", srv.URL + "/v1/accounts"}, 0, consentInvalid, ""},
		{"401 with --fail", []string{"--fail", "GET", srv.URL + "/v1/accounts"}, exitHTTPError, consentInvalid, "401 Unauthorized"},
		{"200 with --fail", []string{"--fail", "POST", srv.URL + "/v1/sandbox/initialize"}, 0, `{"customers":[]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			fl := commandFlags(t, "tpp-request", append([]string{"--pki", pkiDir, "-H", "TPP-Redirect-URI: https://tpp.example.no/cb"}, tc.args...)...)
			status, err := tppRequest(fl, &stdout, &stderr)
			if err != nil {
				t.Fatalf("error %v (logged at error level)", err)
			}
			if status != tc.wantStatus {
				t.Errorf("exit status %d, want %d", status, tc.wantStatus)
			}
			if !strings.Contains(stdout.String(), tc.wantOut) {
				t.Errorf("stdout does not show the answer's body %s:\n%s", tc.wantOut, stdout.String())
			}
			if tc.wantErrOut == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.wantErrOut) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantErrOut)
			}
		})
	}
}

// TestTPPRequestNoAnswer: without an answer (nothing listens) the command
// fails with an error and the startup failure status.
func TestTPPRequestNoAnswer(t *testing.T) {
	srv := gatewayStandIn(t, http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	var stdout, stderr bytes.Buffer
	status, err := tppRequest(commandFlags(t, "tpp-request", "--pki", pkiDir, "GET", url+"/v1/accounts"), &stdout, &stderr)
	if err == nil || status != 1 {
		t.Fatalf("status %d, error %v; want 1 and an error", status, err)
	}
}

// TestTPPRequestVerifiesTheBankSignature: a signed answer is verified
// against the test PKI's bank seal and the last line says so; an altered
// one says NOT VERIFIED and exits 1; an unsigned one says none.
func TestTPPRequestVerifiesTheBankSignature(t *testing.T) {
	certPEM, _ := os.ReadFile(filepath.Join(pkiDir, "bank-seal.pem"))
	keyPEM, _ := os.ReadFile(filepath.Join(pkiDir, "bank-seal-key.pem"))
	bank, err := seal.Load(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv := gatewayStandIn(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := []byte(`{"accounts":[]}`)
		if r.URL.Path == "/unsigned" {
			w.Write(body)
			return
		}
		w.Header().Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		if err := bank.Sign(w.Header(), body, time.Now()); err != nil {
			t.Error(err)
		}
		if r.URL.Path == "/altered" {
			body = []byte(`{"accounts":[{}]}`)
		}
		w.Write(body)
	}))
	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/v1/accounts", "signature: verified by Test Bank AS\n", 0},
		{"/altered", "signature: NOT VERIFIED: the response's Digest does not match the 17 body bytes received\n", 1},
		{"/unsigned", "signature: none (the response is not signed)\n", 0},
	} {
		var stdout, stderr bytes.Buffer
		status, err := tppRequest(commandFlags(t, "tpp-request", "--pki", pkiDir, "GET", srv.URL+tc.path), &stdout, &stderr)
		if err != nil || status != tc.status || !strings.HasSuffix(stdout.String(), tc.want) {
			t.Errorf("%s: status %d, error %v, output ending %q; want %d and %q", tc.path, status, err, tail(stdout.String()), tc.status, tc.want)
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-120):] }

// TestTPPRequestKeyID: --key-id sends the keyId given instead of the
// certificate's, for a TPP developer to see how the bank reads it.
func TestTPPRequestKeyID(t *testing.T) {
	var got string
	srv := gatewayStandIn(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Signature")
	}))
	p, err := testpki.Load(pkiDir)
	if err != nil {
		t.Fatal(err)
	}
	own, err := tppclient.DefaultKeyID(p.TPP("tpp").Seal.Certificate)
	if err != nil || !strings.HasSuffix(own, ",CA=CN=Test QTSP Issuing CA,O=Test QTSP AS,C=NO") {
		t.Fatalf("the test TPP's keyId %q, %v", own, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `keyId="` + own + `"`},
		{[]string{"--key-id", "SN=1,CA=CN=X"}, `keyId="SN=1,CA=CN=X"`},
	} {
		var stdout, stderr bytes.Buffer
		fl := commandFlags(t, "tpp-request", append(append([]string{"--pki", pkiDir}, tc.args...), "POST", srv.URL+"/v1/sandbox/signature-check")...)
		if _, err := tppRequest(fl, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, tc.want+",") {
			t.Errorf("%v: Signature %s, want keyId %s", tc.args, got, tc.want)
		}
	}
}
