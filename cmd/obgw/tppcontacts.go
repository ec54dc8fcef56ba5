package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/backend/tppcontacts"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "tpp-contacts",
		Usage: "export [--database <url|file>] [--data-dir <dir>] [--format csv|json]",
		Short: "Exports every TPP's registered contact addresses, for the bank's operators",
		Long: `
Writes the contact addresses TPPs registered with PUT /v1/tpp-contacts (the
mailboxes that receive the bank's operational notices, such as major
downtime) to standard output, as CSV (default) or JSON. It reads the
backend's database: --database (default $OBGW_DATABASE_URL: a postgres://
URL or a SQLite file), else the embedded SQLite file under --data-dir
(default $OBGW_DATA_DIR, else Caddy's data directory + /obgw).

A running obgw serves the same list on its admin endpoint only:
GET /obgw/tpp-contacts?format=csv|json.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("database", os.Getenv("OBGW_DATABASE_URL"), "The backend's database: postgres:// URL or SQLite file")
			cmd.Flags().String("data-dir", os.Getenv("OBGW_DATA_DIR"), "Directory of the embedded SQLite file")
			cmd.Flags().String("format", tppcontacts.FormatCSV, "csv or json")
			cmd.Args = cobra.ExactArgs(1)
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdTPPContacts)
		},
	})
}

func cmdTPPContacts(fl caddycmd.Flags) (int, error) {
	if fl.Arg(0) != "export" {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("unknown tpp-contacts command %q; use export", fl.Arg(0))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := openBackendStore(ctx, fl, false)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	defer st.Close()
	list, err := st.ListTPPContacts(ctx)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	if err := tppcontacts.Export(os.Stdout, fl.String("format"), list); err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	return caddy.ExitCodeSuccess, nil
}
