package main

import (
	"fmt"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/testpki"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "testpki",
		Usage: "[--out <dir>]",
		Short: "Generates the test PKI: QTSP CAs, TPP QSealCs and QWACs, the bank seal, CRL, registry, TLS server certificate",
		Long: `
Generates a fresh test PKI for obgw's sandbox and tests and writes it as PEM
files plus registry.json to the output directory (default testdata/pki):
the QTSP root and issuing CA bundle (qtsp-cas.pem), its CRL (qtsp-crl.pem), a
localhost TLS server certificate (server.pem, server-key.pem) from its own CA
(tls-ca.pem), the client certificate a gateway presents to a split backend
(gateway.pem, gateway-key.pem) from another CA (gateway-ca.pem), the bank's
QSealC the gateway signs its responses with (bank-seal.pem, bank-seal-key.pem),
and for each
test TPP a QSealC and a QWAC with their keys
(<name>-qseal.pem, <name>-qseal-key.pem, <name>-qwac.pem, <name>-qwac-key.pem).

Organisation identifiers and names are fixed; keys and serial numbers are new
each time. The private keys are unencrypted: for tests only.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().StringP("out", "o", "testdata/pki", "Directory to write the test PKI to")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdTestPKI)
		},
	})
}

func cmdTestPKI(fl caddycmd.Flags) (int, error) {
	out := fl.String("out")
	if out == "" {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("--out must name a directory")
	}
	p, err := testpki.Generate(time.Now())
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	if err := p.WriteDir(out); err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	fmt.Fprintf(os.Stdout, "wrote test PKI with %d TPPs to %s\n", len(p.TPPs), out)
	for _, t := range p.TPPs {
		fmt.Fprintf(os.Stdout, "  %-14s %s  %s\n", t.ID, t.OrganizationIdentifier, t.Name)
	}
	return caddy.ExitCodeSuccess, nil
}
