// Package backend is obgw's bank backend: it wires the concern packages
// over one store.Store and serves their routes. The concerns are account
// information (backend/ais: bank-offered consents, accounts, card
// accounts, balances, transactions, agreements), payment initiation
// (backend/pis: single, periodic and bulk payments, signing baskets,
// authorisation, cancellation, settlement), the SCA redirect flow and the
// PSU's pages (backend/sca), the sandbox of a sandbox deployment
// (backend/sandbox: its data set and mock-data operations) and TPP
// contact registration (backend/tppcontacts). The operator import and the
// background jobs (batch runs, retention sweeps) are here.
//
// It trusts only requests carrying a valid X-Obgw-Context token from the
// gateway (auth.go); the PSU-facing SCA pages under /v1/sca/ are the
// exception and are bound to the PSU's browser instead
// (backend/sca/session.go). Files are named for what they hold: routes.go
// has every route, route_patterns.go how a request finds its one route,
// batches.go and retention.go the jobs. The same Server runs in-process
// under Caddy (the obgw_backend handler) or as its own service behind
// reverse_proxy.
package backend
