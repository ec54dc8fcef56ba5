//go:build cgo && !obgw_purego

package opensslkey

// Available reports whether this build signs through OpenSSL.
const Available = true
