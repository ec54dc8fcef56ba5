package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/pflag"
)

// The admin endpoint changes the running configuration, so where it
// listens is the operator's first safety setting (README "Safe
// defaults"). Two things Caddy's commands leave to the operator are done
// here, before them (issue 33, 1):
//
//   - run and start make the directory of a unix socket the admin
//     endpoint is to listen on (OBGW_ADMIN="unix//run/obgw/admin.sock|0600"),
//     mode 0700, or say plainly that it cannot be made;
//   - reload refuses a configuration whose admin endpoint is not the one
//     it sends the configuration to (--address): loading it would move
//     the running admin endpoint there, from a unix socket back onto TCP
//     when the reload's environment lacks OBGW_ADMIN. The instance keeps
//     its admin endpoint; moving it takes a restart.

// adminPreflight runs before Caddy's command of args (os.Args[1:]); it
// returns a message and false when the command must not run.
func adminPreflight(args []string) (string, bool) {
	if len(args) == 0 {
		return "", true
	}
	switch args[0] {
	case "run", "start":
		return prepareAdminSocket(os.Getenv("OBGW_ADMIN"))
	case "reload":
		return checkReloadAddress(args[1:])
	}
	return "", true
}

// socketPath is the file of a unix admin address ("unix/<path>|<mode>"),
// or "" for another address.
func socketPath(addr string) string {
	p, ok := strings.CutPrefix(addr, "unix/")
	if !ok {
		return ""
	}
	p, _, _ = strings.Cut(p, "|")
	return p
}

// prepareAdminSocket makes the directory of the unix socket addr names.
func prepareAdminSocket(addr string) (string, bool) {
	p := socketPath(addr)
	if p == "" {
		return "", true
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Sprintf("obgw: the admin socket %s needs its directory %s, which cannot be made (%v): create it, owned by the user obgw runs as (mode 0700), or choose another OBGW_ADMIN", p, dir, err), false
	}
	return "", true
}

// checkReloadAddress refuses a reload whose configuration's admin
// endpoint is not the --address it is sent to.
func checkReloadAddress(args []string) (string, bool) {
	fs := pflag.NewFlagSet("reload", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.Usage = func() {}
	config := fs.StringP("config", "c", "", "")
	adapter := fs.StringP("adapter", "a", "", "")
	address := fs.String("address", "", "")
	if err := fs.Parse(args); err != nil || *address == "" {
		// Caddy's reload sends the configuration to the admin endpoint
		// it names itself, which cannot move it.
		return "", true
	}
	cfg, _, _, err := caddycmd.LoadConfig(*config, *adapter)
	if err != nil || len(cfg) == 0 {
		return "", true // Caddy's reload says what is wrong
	}
	var c struct {
		Admin *caddy.AdminConfig `json:"admin"`
	}
	if json.Unmarshal(cfg, &c) != nil {
		return "", true
	}
	listen := caddy.DefaultAdminListen
	if c.Admin != nil {
		if c.Admin.Disabled {
			return "", true // turning it off widens nothing
		}
		if c.Admin.Listen != "" {
			listen = c.Admin.Listen
		}
	}
	if sameAdminAddress(listen, *address) {
		return "", true
	}
	return fmt.Sprintf("obgw reload: refused: this configuration's admin endpoint is %s, and it is sent to %s: loading it would move the running admin endpoint to %s. "+
		"Reload with the OBGW_ADMIN the instance was started with (OBGW_ADMIN=%q); moving the admin endpoint takes a restart", listen, *address, listen, *address), false
}

// sameAdminAddress compares two admin addresses, a unix socket's without
// its file mode.
func sameAdminAddress(a, b string) bool {
	if pa, pb := socketPath(a), socketPath(b); pa != "" || pb != "" {
		return pa == pb
	}
	norm := func(s string) string {
		s = strings.TrimPrefix(s, "tcp/")
		return strings.Replace(s, "127.0.0.1", "localhost", 1)
	}
	return norm(a) == norm(b)
}
