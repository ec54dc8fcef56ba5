// Package gateway is the TPP request verification pipeline: given a request,
// its buffered body, the optional mTLS client certificate and the route's
// Policy, Verifier.Verify runs the checks cheapest first (hygiene, Date,
// certificate, registry and role, QWAC, signature, Digest, replay) and either
// rejects the request with a Berlin Group error or issues the context token
// the backend trusts. The Caddy handler in caddymodule is a thin adapter.
package gateway
