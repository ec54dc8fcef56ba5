package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/backend"
	"github.com/obgw/obgw/bgerror"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "import",
		Usage: "[--database <url|file>] [--data-dir <dir>] [--create] <file|->",
		Short: "Puts the bank's customers, accounts, card accounts, agreements, balances and transactions into obgw's own backend",
		Long: `
Imports the bank's own data, the data production serves, into the database
of obgw's in-process backend: --database (default $OBGW_DATABASE_URL: a
postgres:// URL or a SQLite file), else the embedded SQLite file under
--data-dir (default $OBGW_DATA_DIR, else Caddy's data directory + /obgw),
which must exist unless --create.

The document (a file, or - for standard input) is a JSON object of the
arrays customers, accounts, cardAccounts, agreements and transactions,
each item in the shape of the sandbox's mock-data bodies and validated by
their rules; a transactions item names an account by iban or bban, or a
card account by maskedPan and customerNumber, and lists booked
transactions, each with its entryReference (account) or
cardTransactionId (card account). The import is idempotent (run it again
and nothing changes), applied in one transaction (a running obgw serves all
of it or none; a document with a broken rule changes nothing) and may run
while obgw serves. README "Production data" says more.

It prints what it changed as JSON; a broken rule is printed as
"<path>: <rule>" lines on standard error, and the command exits 1.

A running obgw imports the same document on its admin endpoint:
POST /obgw/import.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("database", os.Getenv("OBGW_DATABASE_URL"), "The backend's database: postgres:// URL or SQLite file")
			cmd.Flags().String("data-dir", os.Getenv("OBGW_DATA_DIR"), "Directory of the embedded SQLite file")
			cmd.Flags().Bool("create", false, "Make the SQLite file when there is none yet")
			cmd.Args = cobra.ExactArgs(1)
			cmd.RunE = sayPlainly("import", cmdImport)
		},
	})
}

func cmdImport(fl caddycmd.Flags, stdout, stderr io.Writer) (int, error) {
	in := io.Reader(os.Stdin)
	if name := fl.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return caddy.ExitCodeFailedStartup, err
		}
		defer f.Close()
		in = f
	}
	doc, err := io.ReadAll(io.LimitReader(in, backend.MaxImportBytes+1))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	st, err := openBackendStore(ctx, fl, fl.Bool("create"))
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer st.Close()
	report, err := backend.Import(ctx, st, doc, time.Now())
	var rule *bgerror.Error
	if errors.As(err, &rule) {
		fmt.Fprintf(stderr, "%s: %s\n", rule.Path, rule.Text)
		for _, d := range rule.More {
			fmt.Fprintf(stderr, "%s: %s\n", d.Path, d.Text)
		}
		return caddy.ExitCodeFailedStartup, fmt.Errorf("nothing was imported: the document breaks the rules above")
	}
	if err != nil {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("nothing was imported: %v", err)
	}
	out, _ := json.MarshalIndent(report, "", "  ")
	fmt.Fprintln(stdout, string(out))
	return caddy.ExitCodeSuccess, nil
}
