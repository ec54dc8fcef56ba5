package main

import (
	"crypto/tls"
	"crypto/x509"
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
		Usage: "[--pki <dir>] [--tpp <id>] [--qwac] [-H 'Name: value']... [--data <json>] <METHOD> <URL>",
		Short: "Sends one request signed as a test TPP, and prints the response",
		Long: `
Signs a request as a TPP of the test PKI (QSealC and key from --pki, default
testdata/pki, TPP --tpp, default "tpp") exactly as the interface description
demands: Date, X-Request-ID, Digest, TPP-Signature-Certificate and Signature.
It trusts the test TLS CA (tls-ca.pem) and with --qwac presents the TPP's
QWAC for mutual TLS. The response status, headers and body are printed.

Example, with 'make run' in another terminal:

	bin/obgw tpp-request GET https://localhost:8443/v1/accounts \
	    -H 'TPP-Redirect-URI: https://tpp.example.no/cb'
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("pki", "testdata/pki", "Directory of the test PKI")
			cmd.Flags().String("tpp", "tpp", "Test TPP to sign as (tpp, aisp, ...)")
			cmd.Flags().Bool("qwac", false, "Present the TPP's QWAC as TLS client certificate")
			cmd.Flags().Bool("request-target", false, "Sign (request-target) too")
			cmd.Flags().StringArrayP("header", "H", nil, "Extra header 'Name: value' (repeatable)")
			cmd.Flags().StringP("data", "d", "", "JSON body")
			cmd.Args = cobra.ExactArgs(2)
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdTPPRequest)
		},
	})
}

func cmdTPPRequest(fl caddycmd.Flags) (int, error) {
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
	roots := x509.NewCertPool()
	if ca, err := os.ReadFile(filepath.Join(dir, "tls-ca.pem")); err == nil {
		roots.AppendCertsFromPEM(ca)
	}
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
	client := tppclient.NewClient(signer, tppclient.NewTLSTransport(roots, clientCert))
	resp, err := client.Do(method, url, headers, body)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer resp.Body.Close()
	fmt.Println(resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			fmt.Printf("%s: %s\n", k, v)
		}
	}
	fmt.Println()
	_, _ = io.Copy(os.Stdout, resp.Body)
	fmt.Println()
	if resp.StatusCode >= 400 {
		// Like curl --fail: a script can tell an error answer apart.
		return 22, fmt.Errorf("the gateway answered %s", resp.Status)
	}
	return caddy.ExitCodeSuccess, nil
}
