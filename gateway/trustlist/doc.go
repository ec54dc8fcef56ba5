// Package trustlist reads the EU trusted lists (ETSI TS 119 612): the
// List of Trusted Lists the European Commission signs, and the national
// lists it points to, each signed by a certificate the LOTL names for it.
// Verify checks a list's XML signature (goxmldsig); Parse reads the
// signed content: the LOTL's pointers, and each qualified trust service
// with its status history and what it issues certificates for (seals,
// website authentication, signatures).
package trustlist
