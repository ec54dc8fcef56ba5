// Package gateway is the TPP request verification pipeline: given a
// request, the optional mTLS client certificate and the route's Policy,
// Verifier.Verify runs the checks and either rejects the request with a
// Berlin Group error or issues the context token the backend trusts.
//
// The order is hygiene (sizes, syntax, required headers), Date, the
// QSealC, the signature, the register, the role, the QWAC, replay, then
// the body (read only now, through Request.ReadBody) with its Digest and
// the JSON rules of hygiene, and last the PSU-not-present limit. Nothing is
// said about a TPP (register, role) before its signature is checked, so a
// request that merely carries a TPP's public certificate learns nothing
// and is not attributed to it; replay is recorded only for signed requests,
// so a forger cannot burn a TPP's request ids; the body is read only after
// replay, so one signed set of headers opens at most one body read; and the
// limit, which applies only to routes with a limit kind and requests
// without PSU-IP-Address, comes last, so that it counts only calls that
// would be served.
//
// With Config.Diagnostics (a sandbox's setting) the texts of signature,
// Digest and Date failures name the precise cause and carry the signing
// string built (diagnose.go); Verifier.Analyse answers every check of a
// request without executing or recording anything (analysis.go), for the
// sandbox's signature check.
//
// The Caddy handler obgw_verify in caddymodule is a thin adapter.
package gateway
