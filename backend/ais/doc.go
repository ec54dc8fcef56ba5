// Package ais is the account information service: bank-offered consents
// (their creation, status and deletion by the TPP), the access a consent
// gives (resolved per request from the PSU, its session and the consent in
// force of a context), and the reads it allows: accounts, card accounts,
// balances, transactions and the PSU's corporate agreements.
//
// It knows the SCA it needs only as Flows, and the store as the small
// Store of the operations it uses; the backend wires both.
package ais
