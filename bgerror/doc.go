// Package bgerror builds the Berlin Group NextGenPSD2 error responses that
// obgw sends to TPPs. Every rejection, whether from the gateway or from the
// backend, goes through this package so that the body shape, the status code
// of each error code and the length of the text are the same everywhere.
package bgerror
