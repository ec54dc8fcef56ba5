// Package replay remembers which (TPP, X-Request-ID) pairs were already used,
// so that a captured signed request cannot be sent again while its Date is
// still inside the skew window. Memory serves a single gateway; a Redis store
// (SET NX with a TTL) lets several gateways share one memory.
package replay
