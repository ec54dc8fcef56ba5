// Package backend is obgw's bank backend: the account-information half
// (bank-offered consents, the SCA redirect flow and its HTML page, accounts,
// card accounts, balances, transactions, agreements) over a store.Store.
// It trusts only requests carrying a valid X-Obgw-Context token from the
// gateway; the PSU-facing SCA pages under /v1/sca/ are the exception and are
// protected by CSRF tokens instead. The same Server runs in-process under
// Caddy (the obgw_backend handler) or as its own service behind
// reverse_proxy.
package backend
