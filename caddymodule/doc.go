// Package caddymodule holds obgw's Caddy adapters: the obgw app (global
// option) that owns the shared verification state, the obgw_verify handler
// that runs the TPP verification pipeline in front of a route, and the
// obgw_error handler that answers with Berlin Group error bodies. The logic
// lives in plain packages under gateway/; these files only configure and
// call it.
package caddymodule
