package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/testidp"
)

// testIDPUsers are the PSUs of the sandbox data set (backend/sandbox), as
// the test identity provider knows them.
var testIDPUsers = []testidp.User{
	{NationalID: sandbox.KariNumber, Password: "test", Name: "Kari Nordmann", ACR: "urn:obgw:acr:high"},
	{NationalID: sandbox.OlaNumber, Password: "test", Name: "Ola Nordmann", ACR: "urn:obgw:acr:substantial"},
}

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "test-idp",
		Usage: "[--listen <addr>] [--client-id <id>] [--client-secret <secret>] [--redirect <uri>]...",
		Short: "Runs an OpenID Connect provider with the sandbox PSUs, for local demos and tests of SCA login",
		Long: `
Runs a real OpenID Connect provider (authorization code flow with PKCE S256,
RS256 ID tokens) over plain HTTP, for obgw's SCA pages to log PSUs in
against, as they would against the bank's BankID broker. Its issuer is
http://<listen address>.

It knows one relying party (--client-id, --client-secret, one or more
--redirect URIs) and the PSUs of the sandbox data set, password "test":
Kari Nordmann 15038540189 (acr urn:obgw:acr:high) and Ola Nordmann
22079140086 (acr urn:obgw:acr:substantial). The ID token carries the
national identity number in the claim "nnin", the acr in "acr", and an
opaque "sub".

For tests and demos only: it prints the passwords, and stops on Ctrl-C.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("listen", "127.0.0.1:9998", "Address to serve on (host:port); the issuer is http://<address>")
			cmd.Flags().String("client-id", "obgw", "Client id of the relying party")
			cmd.Flags().String("client-secret", "obgw-test-secret", "Client secret of the relying party")
			cmd.Flags().StringArray("redirect", []string{
				"https://localhost:8443/api-sandbox/v1/sca/callback",
				"https://localhost:8443/v1/sca/callback",
			}, "Redirect URI of the relying party (repeat for more)")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdTestIDP)
		},
	})
}

func cmdTestIDP(fl caddycmd.Flags) (int, error) {
	redirects, err := fl.GetStringArray("redirect")
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	client := testidp.Client{ID: fl.String("client-id"), Secret: fl.String("client-secret"), RedirectURIs: redirects}
	p, err := testidp.Listen(fl.String("listen"), testidp.Config{Users: testIDPUsers, Clients: []testidp.Client{client}})
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer p.Close()

	fmt.Fprintf(os.Stdout, "test OpenID provider at %s\n", p.Issuer())
	fmt.Fprintf(os.Stdout, "  discovery      %s/.well-known/openid-configuration\n", p.Issuer())
	fmt.Fprintf(os.Stdout, "  client id      %s\n", client.ID)
	fmt.Fprintf(os.Stdout, "  client secret  %s\n", client.Secret)
	for _, r := range client.RedirectURIs {
		fmt.Fprintf(os.Stdout, "  redirect URI   %s\n", r)
	}
	fmt.Fprintf(os.Stdout, "  ID token claims: sub (opaque), %s (national identity number), acr, name\n", testidp.NationalIDClaim)
	fmt.Fprintln(os.Stdout, "users (national identity number / password, acr):")
	for _, u := range testIDPUsers {
		fmt.Fprintf(os.Stdout, "  %-14s %s / %s  %s\n", u.Name, u.NationalID, u.Password, u.ACR)
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	if err := p.Close(); err != nil {
		return caddy.ExitCodeFailedQuit, err
	}
	return caddy.ExitCodeSuccess, nil
}
