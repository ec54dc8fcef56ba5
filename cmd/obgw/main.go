// Command obgw is the obgw gateway: Caddy with its standard modules and the
// obgw modules (TPP verification, backend, test PKI generator).
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/obgw/obgw/caddymodule"
)

func main() {
	caddycmd.Main()
}
