package hygiene

import (
	"net/netip"
	"strings"
)

// MaxRedirectURIBytes bounds the length of TPP-Redirect-URI, which the
// backend stores with every SCA flow: real callback URIs with a state
// parameter are a few hundred bytes.
const MaxRedirectURIBytes = 1024

// CheckRedirectURI checks a TPP-Redirect-URI value: an absolute https URI
// (RFC 3986) with a host, no userinfo and no fragment, at most
// MaxRedirectURIBytes long, with only characters a URI may carry
// (non-ASCII must be percent-encoded). The host is a DNS name, an IPv4
// address or a bracketed IPv6 address without zone; a port is optional.
// When allowHTTPLocalhost is set (sandbox), http is also accepted for the
// hosts localhost, 127.0.0.1 and [::1]. The URI is never fetched.
func CheckRedirectURI(name, v string, allowHTTPLocalhost bool) error {
	if text := redirectURIProblem(v, allowHTTPLocalhost); text != "" {
		return &Error{Path: name, Text: text}
	}
	return nil
}

func redirectURIProblem(v string, allowHTTPLocalhost bool) string {
	if len(v) > MaxRedirectURIBytes {
		return "redirect URI is too long; send at most 1024 bytes"
	}
	var rest string
	isHTTP := false
	switch {
	case hasPrefixFold(v, "https://"):
		rest = v[len("https://"):]
	case hasPrefixFold(v, "http://"):
		rest, isHTTP = v[len("http://"):], true
	default:
		return "not an absolute https URI; send https://<host>/<path>"
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if strings.IndexByte(authority, '@') >= 0 {
		return "redirect URI must not carry userinfo (user@host); remove it"
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		close := strings.IndexByte(authority, ']')
		if close < 0 {
			return "redirect URI has an unclosed IPv6 literal in the host"
		}
		host, port = authority[:close+1], authority[close+1:]
		a, err := netip.ParseAddr(authority[1:close])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "redirect URI has an invalid IPv6 literal in the host"
		}
	} else if colon := strings.IndexByte(authority, ':'); colon >= 0 {
		host, port = authority[:colon], authority[colon:]
		if !isDNSHost(host) {
			return "redirect URI has an invalid host; send a DNS name or IP address"
		}
	} else if !isDNSHost(host) {
		return "redirect URI has an invalid host; send a DNS name or IP address"
	}
	if port != "" && (port[0] != ':' || !isPort(port[1:])) {
		return "redirect URI has an invalid port; send 1-65535 after ':'"
	}
	if isHTTP && !(allowHTTPLocalhost && isLoopbackHost(host)) {
		if allowHTTPLocalhost {
			return "redirect URI must use https; http is allowed only for localhost, 127.0.0.1 and [::1]"
		}
		return "redirect URI must use https"
	}
	for i := 0; i < len(tail); i++ {
		c := tail[i]
		switch {
		case c == '#':
			return "redirect URI must not carry a fragment (#...); remove it"
		case c == '%':
			if i+2 >= len(tail) || !isHex(tail[i+1]) || !isHex(tail[i+2]) {
				return "redirect URI has an invalid percent-encoding; write '%' as %25"
			}
			i += 2
		case !uriByte[c]:
			return "redirect URI has a character a URI may not carry; percent-encode it"
		}
	}
	return ""
}

// uriByte marks the characters RFC 3986 allows in a path and query as they
// are: unreserved, sub-delims, ':', '@', '/' and '?'.
var uriByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-._~!$&'()*+,;=:@/?" {
		t[c] = true
	}
	return t
}()

// isDNSHost accepts dot-separated labels of letters, digits and hyphens (so
// also dotted IPv4), at most 253 bytes, without empty labels except an
// optional trailing dot.
func isDNSHost(h string) bool {
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	label := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
		case c == '-' || isDigit(c) || ((c|0x20) >= 'a' && (c|0x20) <= 'z'):
			label++
			if label > 63 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func isLoopbackHost(h string) bool {
	return strings.EqualFold(h, "localhost") || h == "127.0.0.1" || h == "[::1]"
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case;
// prefix must be lower case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}
