package hygiene

import (
	"fmt"
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
	formatSessionID
)

type headerRule struct {
	name   string       // spelled as in the contract, used in errors
	format headerFormat // the syntax checked when present
	// maxLen bounds the value in bytes; for a header that may repeat,
	// the sum over its values.
	maxLen int
	// repeat allows the header more than once (content negotiation and
	// x-accept-fix lists); every other header may occur at most once.
	repeat bool
}

// Input bounds, in bytes. They keep what a client sends, and what the
// gateway and backend keep of it (sessions, SCA flows, limiter keys), small;
// each is far above what a conforming client sends.
const (
	// MaxSignatureBytes matches the Signature parser's own bound: a
	// 4096-bit signature is 684 base64 characters, and the keyId's DN and
	// the header list fill the rest.
	MaxSignatureBytes = 8 << 10
	// MaxDigestBytes matches the Digest parser's own bound.
	MaxDigestBytes = 4 << 10
	// MaxCertificateBytes is the contract's 16 KiB TPP-Signature-Certificate
	// bound (eidas.MaxCertificateHeaderSize), so a certificate the eIDAS
	// check would parse always passes hygiene.
	MaxCertificateBytes = 16 << 10
	// MaxTPPSessionIDBytes bounds TPP-Session-ID, which the backend stores
	// with every session and SCA flow.
	MaxTPPSessionIDBytes = 128
	// MaxContextTokenBytes bounds X-Obgw-Context; the gateway replaces an
	// incoming one, so this only caps work on a forged value.
	MaxContextTokenBytes = 8 << 10
)

// headerRules is the one table of the headers the interface description
// types: which may occur once only, the format checked, and the bound on
// the value's length. CheckHeaders checks them in this order, so the first
// problem reported is stable. The package documentation and the README's
// "Input bounds" table list the same bounds; TestHeaderBoundsDocumented
// keeps them in step.
var headerRules = [...]headerRule{
	{name: "Signature", maxLen: MaxSignatureBytes},
	{name: "Digest", maxLen: MaxDigestBytes},
	{name: "Date", maxLen: 64},
	{name: "X-Request-ID", format: formatUUID, maxLen: 36},
	{name: "TPP-Signature-Certificate", maxLen: MaxCertificateBytes},
	{name: "PSU-ID", format: formatUUID, maxLen: 36},
	{name: "PSU-Corporate-ID", format: formatUUID, maxLen: 36},
	{name: "PSU-Device-ID", format: formatUUID, maxLen: 36},
	{name: "PSU-IP-Address", format: formatIPAddress, maxLen: 45},
	{name: "PSU-IP-Port", format: formatPort, maxLen: 5},
	{name: "PSU-HTTP-Method", format: formatHTTPMethod, maxLen: 6},
	{name: "PSU-Geo-Location", format: formatGeoLocation, maxLen: 64},
	{name: "TPP-Redirect-URI", format: formatRedirectURI, maxLen: MaxRedirectURIBytes},
	{name: "TPP-Redirect-Preferred", format: formatBool, maxLen: 5},
	{name: "TPP-Session-ID", format: formatSessionID, maxLen: MaxTPPSessionIDBytes},
	{name: "X-Obgw-Context", maxLen: MaxContextTokenBytes},
	{name: "Content-Type", maxLen: 256},
	{name: "PSU-User-Agent", maxLen: 1024, repeat: true},
	{name: "PSU-Accept", maxLen: 512, repeat: true},
	{name: "PSU-Accept-Charset", maxLen: 256, repeat: true},
	{name: "PSU-Accept-Encoding", maxLen: 256, repeat: true},
	{name: "PSU-Accept-Language", maxLen: 256, repeat: true},
	{name: "Accept", maxLen: 512, repeat: true},
	{name: "Accept-Charset", maxLen: 256, repeat: true},
	{name: "Accept-Encoding", maxLen: 256, repeat: true},
	{name: "Accept-Language", maxLen: 256, repeat: true},
	{name: "X-Accept-Fix", maxLen: 512, repeat: true},
}

// headerRuleIndex maps a canonical header key (textproto form) to its
// index in headerRules, or -1.
func headerRuleIndex(key string) int {
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
	case "Psu-User-Agent":
		return 17
	case "Psu-Accept":
		return 18
	case "Psu-Accept-Charset":
		return 19
	case "Psu-Accept-Encoding":
		return 20
	case "Psu-Accept-Language":
		return 21
	case "Accept":
		return 22
	case "Accept-Charset":
		return 23
	case "Accept-Encoding":
		return 24
	case "Accept-Language":
		return 25
	case "X-Accept-Fix":
		return 26
	}
	return -1
}

// CheckHeaders checks every header of a request: each value with
// CheckHeaderValue; then, for the headers the interface description types
// (headerRules), that each occurs at most once unless it is a list
// (Accept*, PSU-Accept*, PSU-User-Agent, X-Accept-Fix), counting every
// spelling of its name; that its value is within its length bound; and the
// format of those present: X-Request-ID, PSU-ID, PSU-Corporate-ID and
// PSU-Device-ID UUIDs, PSU-IP-Address, PSU-IP-Port, PSU-HTTP-Method,
// PSU-Geo-Location, TPP-Redirect-URI, TPP-Redirect-Preferred and
// TPP-Session-ID. Which headers a route requires is the caller's business
// (see Require). When several headers are bad, the error reported does not
// depend on map order.
func CheckHeaders(h http.Header, rules HeaderRules) error {
	var counts, sizes [len(headerRules)]int
	var values [len(headerRules)]string
	var bad *Error
	badKey := ""
	for key, vs := range h {
		if bad != nil && key >= badKey {
			// Only an earlier name can replace the error found, so that
			// the answer is the same whatever the map order.
			continue
		}
		idx := headerRuleIndex(key)
		if idx < 0 {
			if canon := textproto.CanonicalMIMEHeaderKey(key); canon != key {
				idx = headerRuleIndex(canon)
			}
		}
		name := key
		if idx >= 0 {
			name = headerRules[idx].name
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
			for _, v := range vs {
				sizes[idx] += len(v)
			}
		}
	}
	if bad != nil {
		return bad
	}
	for i, rule := range headerRules {
		switch {
		case counts[i] == 0:
			continue
		case counts[i] > 1 && !rule.repeat:
			return &Error{Path: rule.name, Text: "header occurs more than once; send it once"}
		case sizes[i] > rule.maxLen:
			return tooLong(rule, sizes[i])
		}
		if err := checkHeaderFormat(rule, values[i], rules); err != nil {
			return err
		}
	}
	// A second signature in Authorization (draft-cavage's other carrier)
	// beside Signature: which one counts would be the server's guess.
	for _, v := range h.Values("Authorization") {
		if len(v) >= len("Signature ") && strings.EqualFold(v[:len("Signature ")], "Signature ") {
			return &Error{Path: "Authorization", Text: "carries a signature besides the Signature header; send the signature once, in the Signature header"}
		}
	}
	return nil
}

// tooLong is the error for a value over its bound; it names the bound but
// does not echo the value.
func tooLong(rule headerRule, size int) *Error {
	what := "header value is"
	if rule.repeat {
		what = "header values are together"
	}
	return &Error{Path: rule.name, Text: fmt.Sprintf("%s %d bytes, more than the %d allowed; send at most %d bytes", what, size, rule.maxLen, rule.maxLen)}
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
	case formatSessionID:
		return CheckSessionID(rule.name, v)
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
