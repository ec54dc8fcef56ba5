package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/backend/sandbox"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/testidp"
	"github.com/obgw/obgw/testpki/published"
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
		Usage: "[--listen <addr>] [--client-id <id>] [--client-secret <secret>] [--redirect <uri>]... | --seed",
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

With --seed it serves nothing: it puts the sandbox data set, whose
customers are these PSUs, into obgw's store if the store has no customers
yet, and exits, so that a production deployment (OBGW_ENV=production, which
never seeds) knows the PSUs who log in here. The store is the one obgw's
in-process backend opens: OBGW_DATABASE_URL, else obgw.db in OBGW_DATA_DIR,
else in obgw's directory under Caddy's data directory.

For tests and demos only: it prints the passwords, and stops on Ctrl-C.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("listen", "127.0.0.1:9998", "Address to serve on (host:port); the issuer is http://<address>")
			cmd.Flags().String("client-id", "obgw", "Client id of the relying party")
			cmd.Flags().String("client-secret", published.TestIdPClientSecret, "Client secret of the relying party")
			cmd.Flags().StringArray("redirect", []string{
				"https://localhost:8443/api-sandbox/v1/sca/callback",
				"https://localhost:8443/v1/sca/callback",
			}, "Redirect URI of the relying party (repeat for more)")
			cmd.Flags().Bool("seed", false, "Put the sandbox data set (these PSUs as the bank's customers) into obgw's store and exit")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdTestIDP)
		},
	})
}

func cmdTestIDP(fl caddycmd.Flags) (int, error) {
	if fl.Bool("seed") {
		where, err := seedStore(context.Background())
		if err != nil {
			return caddy.ExitCodeFailedStartup, fmt.Errorf("seeding %s: %w", where, err)
		}
		fmt.Fprintf(os.Stdout, "obgw's store %s holds the sandbox data set's customers\n", where)
		return caddy.ExitCodeSuccess, nil
	}
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

// seedStore puts the sandbox data set into the store obgw's in-process
// backend opens, unless that store has customers already, and returns
// where that store is (a Postgres URL without its password). The store is
// found as obgw_backend finds it in the shipped configuration
// (policies/backend-inprocess.caddy: database {env.OBGW_DATABASE_URL},
// data_dir {$OBGW_DATA_DIR}; caddymodule/backend.go: obgw.db in data_dir,
// by default Caddy's data directory/obgw).
func seedStore(ctx context.Context) (string, error) {
	dsn, where := os.Getenv("OBGW_DATABASE_URL"), ""
	if dsn != "" {
		where = dsn
		if u, err := url.Parse(dsn); err == nil && strings.Contains(dsn, "://") {
			where = u.Redacted()
		}
	} else {
		dir := os.Getenv("OBGW_DATA_DIR")
		if dir == "" {
			dir = filepath.Join(caddy.AppDataDir(), "obgw")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return dir, err
		}
		dsn = filepath.Join(dir, "obgw.db")
		where = dsn
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		return where, err
	}
	defer st.Close()
	return where, sandbox.Seed(ctx, st, time.Now())
}
