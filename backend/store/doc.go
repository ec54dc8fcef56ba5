// Package store is the backend's persistence: customers, accounts and card
// accounts with balances and transactions, corporate agreements, PSU
// identifiers per TPP, SCA flows, TPP sessions and consents. One SQL
// implementation runs on two dialects over one schema: embedded SQLite (pure
// Go, the default) and PostgreSQL (pgx). Everything that matters across
// requests lives here, so any number of backend instances on one PostgreSQL
// behave as one. Money is integer minor units with a currency, never floats.
package store
