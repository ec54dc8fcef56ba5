// Package resource writes the bank's resources as the Berlin Group's JSON
// serves them: amounts, account references, accounts with their links,
// balances and transactions. The account information service answers with
// them, payment initiation names accounts and amounts with them, and the
// sandbox echoes the mock data it stores in the same form, so a field is
// spelled in one place.
package resource
