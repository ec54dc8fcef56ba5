// Package pathid is the rule every value of a request path (an id, a
// product) and every key the backend looks up meets before any store is
// asked: bounded, valid UTF-8, no control characters.
package pathid

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// MaxBytes bounds an id in the path. The store's ids are 29 bytes
// ("enc!!" and 24 characters of URL-safe base64); the gateway's limiter
// allows 128, and so does this.
const MaxBytes = 128

// PlausiblePath reports whether every segment of an escaped path, decoded
// as the router decodes it, could be a path value of ours: at most
// MaxBytes bytes of valid UTF-8 without control characters (C0, DEL,
// C1; NUL included). The routes' literal segments all are, so the rule
// falls on the ids, products included. It is the one place every path
// value ({id}, {consentId}, {paymentId}, {flowId}...) is checked, before
// any handler: PostgreSQL refuses NUL and invalid UTF-8 in text (an error,
// hence 503, where SQLite found nothing), and an id no resource can have
// should cost no query.
func PlausiblePath(escaped string) bool {
	for len(escaped) > 0 {
		seg := escaped
		if i := strings.IndexByte(escaped, '/'); i >= 0 {
			seg, escaped = escaped[:i], escaped[i+1:]
		} else {
			escaped = ""
		}
		if strings.IndexByte(seg, '%') >= 0 {
			v, err := url.PathUnescape(seg)
			if err != nil {
				return false
			}
			seg = v
		}
		if !Plausible(seg) {
			return false
		}
	}
	return true
}

// Plausible reports whether v could be a value the store holds as an
// id or key: at most MaxBytes bytes of valid UTF-8 without control
// characters. Anything else is looked up nowhere.
func Plausible(v string) bool {
	if len(v) > MaxBytes || !utf8.ValidString(v) {
		return false
	}
	for _, c := range v {
		if c < 0x20 || (c >= 0x7f && c <= 0x9f) {
			return false
		}
	}
	return true
}
