package signature

import (
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
)

// maxStackHeaderName is the longest header name canonicalised on the stack;
// longer names (none in practice) go through textproto.
const maxStackHeaderName = 64

// AppendSigningString appends to dst the signing string for the listed
// headers: one "<name>: <value>" line per name, joined with "\n", without
// a trailing newline. RequestTarget stands for "<lower-case method>
// <requestURI>", where requestURI is the target exactly as sent in the
// request line (http.Request.RequestURI, not a re-encoded URL).
//
// Values are taken from h as transmitted; Go's server has already trimmed
// surrounding whitespace. A listed header that is absent, present more than
// once, or whose value holds CR or LF is an error. Note that Go's server
// moves Host out of the header map into http.Request.Host: a caller that
// accepts a signed "host" must put it back into h.
//
// Names must be as Parse returns them (lower-case tokens or
// RequestTarget). Header lookups do not allocate.
func AppendSigningString(dst []byte, headers []string, method, requestURI string, h http.Header) ([]byte, error) {
	if len(headers) == 0 {
		return dst, errors.New("the Signature headers list is empty; list the signed headers")
	}
	for i, name := range headers {
		if i > 0 {
			dst = append(dst, '\n')
		}
		if name == RequestTarget {
			if method == "" || requestURI == "" || strings.ContainsAny(method, " \r\n") || strings.ContainsAny(requestURI, " \r\n") {
				return dst, errors.New("(request-target) needs the request method and the request URI as sent")
			}
			dst = append(dst, RequestTarget+": "...)
			for j := 0; j < len(method); j++ {
				c := method[j]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				dst = append(dst, c)
			}
			dst = append(dst, ' ')
			dst = append(dst, requestURI...)
			continue
		}
		values, err := headerValues(h, name)
		if err != nil {
			return dst, err
		}
		switch {
		case len(values) == 0:
			return dst, fmt.Errorf("header %s is listed in the Signature headers but absent from the request; send it or remove it from headers", clip(name))
		case len(values) > 1:
			return dst, fmt.Errorf("header %s occurs %d times; a signed header must occur once", clip(name), len(values))
		}
		v := values[0]
		if strings.ContainsAny(v, "\r\n") {
			return dst, fmt.Errorf("header %s has a line break in its value", clip(name))
		}
		dst = append(dst, name...)
		dst = append(dst, ": "...)
		dst = append(dst, v...)
	}
	return dst, nil
}

// headerValues returns h's values for a lower-case header name, looked up
// under its canonical key without allocating.
func headerValues(h http.Header, name string) ([]string, error) {
	if name == "" {
		return nil, errors.New("the Signature headers list has an empty name")
	}
	var buf [maxStackHeaderName]byte
	key := buf[:0]
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isTokenByte(c) || 'A' <= c && c <= 'Z' {
			return nil, fmt.Errorf("header name %q in the Signature headers is not a lower-case token", clip(name))
		}
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = c == '-'
		if len(name) <= len(buf) {
			key = append(key, c)
		}
	}
	if len(name) > len(buf) {
		return h[textproto.CanonicalMIMEHeaderKey(name)], nil
	}
	// The compiler does not copy key for a map lookup.
	return h[string(key)], nil
}
