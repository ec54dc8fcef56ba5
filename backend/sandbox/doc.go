// Package sandbox holds the sandbox's fixed data set: the customers,
// accounts, card accounts, balances, transactions and agreements a TPP
// developer can write tests against. The same customer numbers, account
// numbers and amounts come back after every reset; transaction dates are
// relative to the reset, so history and the 90-day rule stay meaningful.
// Every TPP's sandbox holds its own copy (SeedFor at its first call, Reset
// at its initialize).
package sandbox
