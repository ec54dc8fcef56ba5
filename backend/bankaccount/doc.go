// Package bankaccount checks and builds Norwegian account numbers: the
// 11-digit BBAN with its MOD11 check digit, and IBANs with their ISO 13616
// MOD 97 check digits.
package bankaccount
