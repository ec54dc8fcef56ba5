package hygiene

import (
	"fmt"
	"net/netip"
)

// CheckUUID checks that v is a UUID in the canonical 8-4-4-4-12 hex form,
// in either case and of any version.
func CheckUUID(name, v string) error {
	if !IsUUID(v) {
		return &Error{Path: name, Text: "not a UUID; send 8-4-4-4-12 hex digits such as 99391c7e-ad88-49ec-a2ad-99ddcb1f7721"}
	}
	return nil
}

// IsUUID reports whether v is a UUID in the canonical 8-4-4-4-12 hex
// form, in either case and of any version.
func IsUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := v[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// CheckIPAddress checks that v is an IPv4 address in dotted decimal or an
// IPv6 address, without brackets, port or zone.
func CheckIPAddress(name, v string) error {
	a, err := netip.ParseAddr(v)
	if err != nil || a.Zone() != "" {
		return &Error{Path: name, Text: "not an IP address; send an IPv4 or IPv6 address without port or zone"}
	}
	return nil
}

// CheckPort checks that v is a port number 1-65535 written in decimal
// digits without sign or leading zeros.
func CheckPort(name, v string) error {
	if !isPort(v) {
		return &Error{Path: name, Text: "not a port number; send decimal digits 1-65535 without leading zeros"}
	}
	return nil
}

func isPort(v string) bool {
	if len(v) == 0 || len(v) > 5 || v[0] == '0' {
		return false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
		n = n*10 + int(v[i]-'0')
	}
	return n <= 65535
}

// CheckHTTPMethod checks that v is one of GET, POST, PUT, PATCH and DELETE
// (upper case: methods are case-sensitive).
func CheckHTTPMethod(name, v string) error {
	switch v {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
		return nil
	}
	return &Error{Path: name, Text: "not an allowed method; send one of GET, POST, PUT, PATCH, DELETE"}
}

// CheckBool checks that v is "true" or "false".
func CheckBool(name, v string) error {
	if v != "true" && v != "false" {
		return &Error{Path: name, Text: `not a boolean; send "true" or "false"`}
	}
	return nil
}

// CheckSessionID checks a TPP-Session-ID value: 1 to MaxTPPSessionIDBytes
// characters, each an ASCII letter or digit or one of - . _ ~ + / = : (which
// covers UUIDs, base64 and base64url tokens and dotted or colon-separated
// identifiers). The backend stores the value with every session and SCA
// flow and puts it in the PSU's redirect, so it is kept short and plain.
func CheckSessionID(name, v string) error {
	if len(v) > MaxTPPSessionIDBytes {
		return &Error{Path: name, Text: fmt.Sprintf("header value is %d bytes, more than the %d allowed; send at most %d bytes", len(v), MaxTPPSessionIDBytes, MaxTPPSessionIDBytes)}
	}
	if !isSessionID(v) {
		return &Error{Path: name, Text: "not a session identifier; send 1-128 characters of A-Z a-z 0-9 - . _ ~ + / = :"}
	}
	return nil
}

func isSessionID(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', isDigit(c):
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/', c == '=', c == ':':
		default:
			return false
		}
	}
	return true
}
