package accesslog

import (
	"strings"
	"unicode/utf8"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// headersAt writes an HTTP header map below node n, as Caddy's
// LoggableHTTPHeader does (each name with its array of values; the
// credentials REDACTED unless the log is to show them), applying the
// filters of n's children by name. Caddy's own marshaler lowercases every
// name to find the credentials and boxes every array; this one does
// neither, and the lines are the same (TestAccessLogEqualsCaddys).
type headersAt struct {
	n *node
	h caddyhttp.LoggableHTTPHeader
}

// redacted is what Caddy writes for a credential's values.
var redacted = caddyhttp.LoggableStringArray{"REDACTED"}

func (o headersAt) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if o.h.Header == nil {
		return nil
	}
	var arr values
	for name, vals := range o.h.Header {
		if !o.h.ShouldLogCredentials && credential(name) {
			vals = redacted
		}
		arr = vals
		if c := o.n.child(name); c != nil && c.filter != nil {
			switch c.is {
			case deleted:
			case hashed:
				if err := enc.AddArray(name, (*hashedValues)(&arr)); err != nil {
					return err
				}
			default:
				c.filter.Filter(zap.Array(name, caddyhttp.LoggableStringArray(vals))).AddTo(enc)
			}
			continue
		}
		if err := enc.AddArray(name, &arr); err != nil {
			return err
		}
	}
	return nil
}

// values is one header's values, marshaled as Caddy's
// LoggableStringArray is, through a pointer that boxes for free.
type values []string

func (v *values) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, s := range *v {
		enc.AppendString(s)
	}
	return nil
}

// hashedValues is one header's values, each written hashed (Hash).
type hashedValues []string

func (v *hashedValues) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, s := range *v {
		h := hashHex(s)
		enc.AppendByteString(h[:])
	}
	return nil
}

// credential reports whether Caddy redacts header name: its lowercase
// (strings.ToLower) is cookie, set-cookie, authorization or
// proxy-authorization.
func credential(name string) bool {
	if !isASCII(name) {
		// strings.ToLower may map a letter outside ASCII to one in it.
		switch strings.ToLower(name) {
		case "cookie", "set-cookie", "authorization", "proxy-authorization":
			return true
		}
		return false
	}
	return asciiEqualFold(name, "cookie") || asciiEqualFold(name, "set-cookie") ||
		asciiEqualFold(name, "authorization") || asciiEqualFold(name, "proxy-authorization")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiEqualFold compares ASCII s with lowercase ASCII lower, ignoring
// the case of s.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
