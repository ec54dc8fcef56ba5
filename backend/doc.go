// Package backend is obgw's bank backend: account information (bank-offered
// consents, accounts, card accounts, balances, transactions, agreements),
// payment initiation (single, periodic and bulk payments, signing baskets,
// authorisation, cancellation, settlement), the SCA redirect flow and its
// HTML page, TPP contact registration and the sandbox's mock-data
// operations, over a store.Store.
//
// It trusts only requests carrying a valid X-Obgw-Context token from the
// gateway (auth.go); the PSU-facing SCA pages under /v1/sca/ are the
// exception and are bound to the PSU's browser instead (sca_session.go).
// Files are named for what they hold: routes.go has every route; ais_*.go
// account information, pis_*.go payments, sca_*.go the SCA flow,
// sandbox_*.go the sandbox, respond.go errors and bodies. The same Server
// runs in-process under Caddy (the obgw_backend handler) or as its own
// service behind reverse_proxy.
package backend
