package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/tppclient"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "tpp-request",
		Usage: "[--pki <dir>] [--tpp <id>] [--qwac] [--key-id <keyId>] [--fail] [--bank-cert <pem>] [-H 'Name: value']... [--data <json>] <METHOD> <URL>",
		Short: "Sends one request signed as a test TPP, and prints the response",
		Long: `
Signs a request as a TPP of the test PKI (QSealC and key from --pki, default
testdata/pki, TPP --tpp, default "tpp") exactly as the interface description
demands: Date, X-Request-ID, Digest, TPP-Signature-Certificate and Signature.
It trusts the test TLS CA (tls-ca.pem) and with --qwac presents the TPP's
QWAC for mutual TLS. The response status, headers and body are printed.

A signed response's signature (Signature, Digest, ASPSP-Signature-Certificate)
is verified against the bank's seal certificate (--bank-cert, default the
test PKI's bank-seal.pem) and the last line says so: "signature: verified by
<bank>", "signature: none (the response is not signed)", or "signature: NOT
VERIFIED: <why>", which also makes the exit status 1.

Any answer received is a success (exit status 0), a 401 CONSENT_INVALID or
a 400 FORMAT_ERROR included: that answer is what a TPP developer asked to
see. With --fail, as curl --fail, an answer of status 400 or more exits
with status 22 (after printing it), for scripts.

Quote URLs in single quotes: resource ids hold "!!", which interactive
bash expands.

Example, with 'make run' in another terminal:

	bin/obgw tpp-request GET https://localhost:8443/v1/accounts \
	    -H 'TPP-Redirect-URI: https://tpp.example.no/cb'
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("pki", "testdata/pki", "Directory of the test PKI")
			cmd.Flags().String("tpp", "tpp", "Test TPP to sign as (tpp, aisp, ...)")
			cmd.Flags().Bool("qwac", false, "Present the TPP's QWAC as TLS client certificate")
			cmd.Flags().Bool("request-target", false, "Sign (request-target) too")
			cmd.Flags().String("key-id", "", "Send this Signature keyId instead of the certificate's SN=<hex serial>,CA=<issuer DN> (to see how the bank reads another spelling)")
			cmd.Flags().StringArrayP("header", "H", nil, "Extra header 'Name: value' (repeatable)")
			cmd.Flags().StringP("data", "d", "", "JSON body")
			cmd.Flags().Bool("fail", false, "Exit with status 22 when the answer's status is 400 or more")
			cmd.Flags().String("bank-cert", "", "The bank's seal certificate (PEM) to verify response signatures with (default <pki>/bank-seal.pem)")
			cmd.Args = cobra.ExactArgs(2)
			run := caddycmd.WrapCommandFuncForCobra(cmdTPPRequest)
			cmd.RunE = func(cmd *cobra.Command, args []string) error {
				// --fail's exit status comes without an error, which
				// cobra would still print as "Error: exiting with
				// status 22"; the runner logs real errors itself.
				cmd.SilenceErrors = true
				return run(cmd, args)
			}
		},
	})
}

// exitHTTPError is the exit status of tpp-request --fail for an answer of
// status 400 or more: curl --fail's, which scripts already test for.
const exitHTTPError = 22

func cmdTPPRequest(fl caddycmd.Flags) (int, error) {
	return tppRequest(fl, os.Stdout, os.Stderr)
}

// tppRequest sends the request fl describes and prints the answer to
// stdout. An error is returned only when no answer came (or the request
// could not be made): Caddy's command runner logs it at error level, and
// an expected 4xx is no such error.
func tppRequest(fl caddycmd.Flags, stdout, stderr io.Writer) (int, error) {
	dir, id := fl.String("pki"), fl.String("tpp")
	method, url := strings.ToUpper(fl.Arg(0)), fl.Arg(1)
	keyPEM, err := os.ReadFile(filepath.Join(dir, id+"-qseal-key.pem"))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	certPEM, err := os.ReadFile(filepath.Join(dir, id+"-qseal.pem"))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	signer, err := tppclient.NewSigner(keyPEM, certPEM)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	signer.SignRequestTarget = fl.Bool("request-target")
	signer.KeyID = fl.String("key-id")
	var clientCert *tls.Certificate
	if fl.Bool("qwac") {
		c, err := tls.LoadX509KeyPair(filepath.Join(dir, id+"-qwac.pem"), filepath.Join(dir, id+"-qwac-key.pem"))
		if err != nil {
			return caddy.ExitCodeFailedStartup, err
		}
		clientCert = &c
	}
	headers := http.Header{}
	hs, _ := fl.GetStringArray("header")
	for _, h := range hs {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return caddy.ExitCodeFailedStartup, fmt.Errorf("header %q is not 'Name: value'", h)
		}
		headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	var body []byte
	if d := fl.String("data"); d != "" {
		body = []byte(d)
	}
	bankCert := fl.String("bank-cert")
	if bankCert == "" {
		bankCert = filepath.Join(dir, "bank-seal.pem")
	}
	bankPEM, err := os.ReadFile(bankCert)
	if err != nil {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("the bank's seal certificate: %v", err)
	}
	responses, err := tppclient.NewResponseVerifier(bankPEM)
	if err != nil {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("%s: %v", bankCert, err)
	}
	client := tppclient.NewClient(signer, tppclient.NewTLSTransport(gatewayRoots(dir), clientCert))
	resp, err := client.Do(method, url, headers, body)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer resp.Body.Close()
	fmt.Fprintln(stdout, resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(stdout, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintln(stdout)
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("reading the answer's body: %v", err)
	}
	stdout.Write(respBody)
	fmt.Fprintln(stdout)
	bank, err := responses.Verify(resp.Header, respBody, resp.Request.Header.Get("X-Request-ID"))
	switch {
	case errors.Is(err, tppclient.ErrUnsigned):
		fmt.Fprintln(stdout, "signature: none (the response is not signed)")
	case err != nil:
		fmt.Fprintf(stdout, "signature: NOT VERIFIED: %v\n", err)
		return caddy.ExitCodeFailedStartup, nil
	default:
		fmt.Fprintf(stdout, "signature: verified by %s\n", bankName(bank))
	}
	if resp.StatusCode >= 400 && fl.Bool("fail") {
		// A status with no error: the answer printed above says what
		// went wrong, and the runner would log it at error level.
		fmt.Fprintf(stderr, "tpp-request: the answer is %s (--fail: exit status %d)\n", resp.Status, exitHTTPError)
		return exitHTTPError, nil
	}
	return caddy.ExitCodeSuccess, nil
}

// bankName names the bank of a seal certificate: its organisation, else
// its common name.
func bankName(c *x509.Certificate) string {
	if len(c.Subject.Organization) > 0 {
		return c.Subject.Organization[0]
	}
	return c.Subject.CommonName
}
