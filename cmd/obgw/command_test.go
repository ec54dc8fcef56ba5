package main

import (
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// commandFlags parses args as the registered command name does and returns
// its flags, so a test runs the command's own function on a real command
// line.
func commandFlags(t *testing.T, name string, args ...string) caddycmd.Flags {
	t.Helper()
	c, ok := caddycmd.Commands()[name]
	if !ok {
		t.Fatalf("no command %q", name)
	}
	cmd := &cobra.Command{Use: name}
	c.CobraFunc(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
	}
	return caddycmd.Flags{FlagSet: cmd.Flags()}
}
