// Package layering holds the rules of which packages of this module may
// import which, and the test that holds the code to them
// (TestLayers): the gateway's verification logic and the backend know
// nothing of each other or of Caddy; the TPP's client knows nothing of
// the bank; the shared leaves (Berlin Group errors, the context token,
// JSON scanning, PEM files) import no concern; and within the backend,
// the building blocks (payments, money, dates, codes, the store) never
// import the handlers that use them. A concern package of the backend
// added later gets its row here, naming what it may use.
package layering
