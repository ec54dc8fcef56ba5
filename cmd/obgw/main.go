// Command obgw is the obgw gateway: Caddy with its standard modules and the
// obgw modules (TPP verification, backend, test PKI generator).
package main

import (
	"fmt"
	"os"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/obgw/obgw/caddymodule"
)

func main() {
	setGCPercent()
	if msg, ok := adminPreflight(os.Args[1:]); !ok {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	caddycmd.Main()
}
