// Package codelists holds the code lists of the interface description
// ("Sandbox card transaction"): the ISOCurrencyCode list (ISO 4217) and
// the ISOCountryCode list (ISO 3166-1 alpha-2), copied exactly, once for
// every body parser of the backend. They are the description's lists, not
// today's standards: a test checks them against the description's text.
package codelists
