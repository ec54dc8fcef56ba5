package signature

import (
	"fmt"
	"net/http"
	"slices"
)

// conditionalHeaders must be signed whenever the request carries them
// (interface description, Authentication item 6).
var conditionalHeaders = [...]struct {
	name      string // as listed in the Signature headers
	canonical string // http.Header key
	display   string // as the interface description spells it
}{
	{"digest", "Digest", "Digest"},
	{"psu-id", "Psu-Id", "PSU-ID"},
	{"psu-corporate-id", "Psu-Corporate-Id", "PSU-Corporate-ID"},
	{"tpp-redirect-uri", "Tpp-Redirect-Uri", "TPP-Redirect-URI"},
}

// CheckCoverage checks that the signed header list covers what this dialect
// requires: always date and x-request-id; digest, psu-id, psu-corporate-id
// and tpp-redirect-uri whenever the request carries them; and
// (request-target) when requireTarget is set by the route policy. Real
// clients of this dialect do not sign (request-target) by default.
func CheckCoverage(headers []string, h http.Header, requireTarget bool) error {
	for _, name := range [...]string{"date", "x-request-id"} {
		if !slices.Contains(headers, name) {
			return fmt.Errorf("the Signature headers list must include %s", name)
		}
	}
	for _, c := range conditionalHeaders {
		if len(h[c.canonical]) > 0 && !slices.Contains(headers, c.name) {
			return fmt.Errorf("the Signature headers list must include %s because the request has a %s header", c.name, c.display)
		}
	}
	if requireTarget && !slices.Contains(headers, RequestTarget) {
		return fmt.Errorf("the Signature headers list must include %s on this route", RequestTarget)
	}
	return nil
}
