// Package accesslog encodes the gateway's access log with field filters
// (delete, hash, mask) at a fraction of the cost of Caddy's filter
// encoder, and writes the same lines.
//
// Caddy's filter encoder (modules/logging/filterencoder.go) checks every
// field of an entry against its filters by building the field's path as a
// string ("request>headers>" + name), boxes every value into an interface
// on the way, and copies itself into a new wrapper for every nested
// object, whether or not anything below it is filtered. On obgw's product
// path the access log was about a tenth of the gateway's CPU, most of it in
// that walk over a request's header map.
//
// Encoder walks a tree of the configured paths instead: a field is looked
// up by its key among the children of the node it is under, with no string
// built and no value boxed unless a filter applies; an object with nothing
// filtered below it goes to the wrapped encoder untouched; a header map
// (Caddy's LoggableHTTPHeader) is written by the encoder itself, without
// Caddy's lowercasing of every name. The filters are Caddy's own modules
// (Filter is their method set), but for the hash filter, whose
// fmt.Sprintf was a fifth of the log's cost: Hash writes the same hex
// directly. So masking and query rewriting are Caddy's code, and hashing
// is equal to it; TestAccessLogEqualsCaddys and
// FuzzAccessLogEqualsCaddys (caddymodule/log_encoder_test.go) hold the two
// encoders to equal lines, field for field, with the shipped filters. Why a second walk rather than Caddy's:
// the one is in Caddy's module and cannot be changed from here, and the
// walk is the whole of what differs.
//
// Deferred, the other encoder here, is for Caddy's own log: it keeps the
// fields a logger is given and encodes them only for the lines it writes,
// so that the request every answer hands that log is not encoded for a
// line the log then drops.
//
// The package knows Caddy's log marshalers (caddyhttp) and filters
// (logging) by type, and nothing else of Caddy. The Caddy module
// caddy.logging.encoders.obgw_filter in caddymodule is the thin adapter:
// it takes the filter encoder's Caddyfile syntax as is; obgw_deferred is
// Deferred's.
package accesslog
