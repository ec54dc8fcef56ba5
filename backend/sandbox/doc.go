// Package sandbox is the sandbox of a sandbox deployment: its fixed data
// set (dataset.go: the customers, accounts, card accounts, balances,
// transactions and agreements a TPP developer can write tests against),
// each TPP's own copy of it, opened at the TPP's first call (Service.Open)
// and reset at its initialize, and the mock-data operations a TPP makes
// scenarios with (the Service's handlers, under /v1/sandbox).
//
// The same customer numbers, account numbers and amounts come back after
// every reset; transaction dates are relative to the reset, so history
// and the 90-day rule stay meaningful. Mock-data bodies are parsed, and
// what they store is written, by package mockdata, which the operator
// import uses as well.
package sandbox
