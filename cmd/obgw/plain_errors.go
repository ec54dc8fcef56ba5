package main

import (
	"fmt"
	"io"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// sayPlainly is the RunE of a command a person runs by hand (sca,
// import): its error goes to standard error as one sentence, "obgw
// <name>: <error>", where caddycmd would log it as a JSON line; the exit
// status is 1.
func sayPlainly(name string, f func(fl caddycmd.Flags, stdout, stderr io.Writer) (int, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		_, err := f(caddycmd.Flags{FlagSet: cmd.Flags()}, cmd.OutOrStdout(), cmd.ErrOrStderr())
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "obgw %s: %v\n", name, err)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
		}
		return err
	}
}
