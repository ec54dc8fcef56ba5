package hygiene

import (
	"net/http"
	"net/textproto"
	"strings"
)

// HeaderRules configures CheckHeaders for a deployment.
type HeaderRules struct {
	// AllowHTTPLocalhostRedirect accepts http TPP-Redirect-URIs for
	// localhost, 127.0.0.1 and [::1]; for sandbox deployments only.
	AllowHTTPLocalhostRedirect bool
}

type headerFormat uint8

const (
	formatAny headerFormat = iota
	formatUUID
	formatIPAddress
	formatPort
	formatHTTPMethod
	formatGeoLocation
	formatRedirectURI
	formatBool
)

type headerRule struct {
	name   string // spelled as in the contract, used in errors
	format headerFormat
}

// singleHeaders are the headers a request may carry at most once: the
// signed and identity headers, the ones with a format (a format check of a
// repeated header would be ambiguous) and Content-Type. CheckHeaders
// checks them in this order, so the first problem reported is stable.
var singleHeaders = [...]headerRule{
	{"Signature", formatAny},
	{"Digest", formatAny},
	{"Date", formatAny},
	{"X-Request-ID", formatUUID},
	{"TPP-Signature-Certificate", formatAny},
	{"PSU-ID", formatUUID},
	{"PSU-Corporate-ID", formatUUID},
	{"PSU-Device-ID", formatUUID},
	{"PSU-IP-Address", formatIPAddress},
	{"PSU-IP-Port", formatPort},
	{"PSU-HTTP-Method", formatHTTPMethod},
	{"PSU-Geo-Location", formatGeoLocation},
	{"TPP-Redirect-URI", formatRedirectURI},
	{"TPP-Redirect-Preferred", formatBool},
	{"TPP-Session-ID", formatAny},
	{"X-Obgw-Context", formatAny},
	{"Content-Type", formatAny},
}

// singleHeaderIndex maps a canonical header key (textproto form) to its
// index in singleHeaders, or -1.
func singleHeaderIndex(key string) int {
	switch key {
	case "Signature":
		return 0
	case "Digest":
		return 1
	case "Date":
		return 2
	case "X-Request-Id":
		return 3
	case "Tpp-Signature-Certificate":
		return 4
	case "Psu-Id":
		return 5
	case "Psu-Corporate-Id":
		return 6
	case "Psu-Device-Id":
		return 7
	case "Psu-Ip-Address":
		return 8
	case "Psu-Ip-Port":
		return 9
	case "Psu-Http-Method":
		return 10
	case "Psu-Geo-Location":
		return 11
	case "Tpp-Redirect-Uri":
		return 12
	case "Tpp-Redirect-Preferred":
		return 13
	case "Tpp-Session-Id":
		return 14
	case "X-Obgw-Context":
		return 15
	case "Content-Type":
		return 16
	}
	return -1
}

// CheckHeaders checks every header of a request: each value with
// CheckHeaderValue; that each signed, identity or formatted header (Signature,
// Digest, Date, X-Request-ID, TPP-Signature-Certificate, PSU-ID,
// PSU-Corporate-ID, PSU-Device-ID, PSU-IP-Address, PSU-IP-Port,
// PSU-HTTP-Method, PSU-Geo-Location, TPP-Redirect-URI,
// TPP-Redirect-Preferred, TPP-Session-ID, X-Obgw-Context, Content-Type)
// occurs at most once, counting every spelling of its name; and the format of
// those present: X-Request-ID, PSU-ID, PSU-Corporate-ID and PSU-Device-ID
// UUIDs, PSU-IP-Address, PSU-IP-Port, PSU-HTTP-Method, PSU-Geo-Location,
// TPP-Redirect-URI and TPP-Redirect-Preferred. Which headers a route
// requires is the caller's business (see Require). When several headers
// are bad, the error reported does not depend on map order.
func CheckHeaders(h http.Header, rules HeaderRules) error {
	var counts [len(singleHeaders)]int
	var values [len(singleHeaders)]string
	var bad *Error
	badKey := ""
	for key, vs := range h {
		if bad != nil && key >= badKey {
			// Only an earlier name can replace the error found, so that
			// the answer is the same whatever the map order.
			continue
		}
		idx := singleHeaderIndex(key)
		if idx < 0 {
			if canon := textproto.CanonicalMIMEHeaderKey(key); canon != key {
				idx = singleHeaderIndex(canon)
			}
		}
		name := key
		if idx >= 0 {
			name = singleHeaders[idx].name
		}
		if err := checkHeaderValues(name, vs); err != nil {
			bad, badKey = err, key
			continue
		}
		if bad != nil {
			continue
		}
		if idx >= 0 && len(vs) > 0 {
			counts[idx] += len(vs)
			values[idx] = vs[0]
		}
	}
	if bad != nil {
		return bad
	}
	for i, rule := range singleHeaders {
		switch {
		case counts[i] == 0:
			continue
		case counts[i] > 1:
			return &Error{Path: rule.name, Text: "header occurs more than once; send it once"}
		}
		if err := checkHeaderFormat(rule, values[i], rules); err != nil {
			return err
		}
	}
	return nil
}

func checkHeaderValues(name string, vs []string) *Error {
	for _, v := range vs {
		if err := CheckHeaderValue(name, v); err != nil {
			return err.(*Error)
		}
	}
	return nil
}

func checkHeaderFormat(rule headerRule, v string, rules HeaderRules) error {
	switch rule.format {
	case formatUUID:
		return CheckUUID(rule.name, v)
	case formatIPAddress:
		return CheckIPAddress(rule.name, v)
	case formatPort:
		return CheckPort(rule.name, v)
	case formatHTTPMethod:
		return CheckHTTPMethod(rule.name, v)
	case formatGeoLocation:
		return CheckGeoLocation(rule.name, v)
	case formatRedirectURI:
		return CheckRedirectURI(rule.name, v, rules.AllowHTTPLocalhostRedirect)
	case formatBool:
		return CheckBool(rule.name, v)
	}
	return nil
}

// Require checks that each named header is present with a value that is
// not blank. Names may be spelled in any case ("X-Request-ID"). The error
// names the first header missing, in the order given, so callers can map
// Signature to SIGNATURE_MISSING and TPP-Signature-Certificate to
// CERTIFICATE_MISSING.
func Require(h http.Header, names ...string) error {
	for _, name := range names {
		vs := lookupHeader(h, name)
		if len(vs) == 0 {
			return &Error{Path: name, Text: "required header is missing; send it"}
		}
		if strings.TrimSpace(vs[0]) == "" {
			return &Error{Path: name, Text: "required header is empty; send a value"}
		}
	}
	return nil
}

// lookupHeader finds the values of name in h without allocating for names
// up to 64 bytes.
func lookupHeader(h http.Header, name string) []string {
	if vs, ok := h[name]; ok {
		return vs
	}
	var buf [64]byte
	if len(name) > len(buf) {
		return h[textproto.CanonicalMIMEHeaderKey(name)]
	}
	b := buf[:len(name)]
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case upper && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case !upper && c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b[i] = c
		upper = c == '-'
	}
	return h[string(b)]
}
