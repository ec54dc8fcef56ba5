package fixes

import "strings"

// Bounds of ParseHeader: what lies beyond them is ignored, so a hostile
// header costs at most this much work.
const (
	// MaxHeaderValues is the number of non-empty list elements read.
	MaxHeaderValues = 32
	// MaxHeaderBytes is the number of header bytes read, over all lines.
	MaxHeaderBytes = 1024
)

// ParseHeader parses the request's x-accept-fix header lines: each a
// comma-separated list; spaces and tabs around elements are ignored, names
// compare ASCII case-insensitively, unknown elements are ignored and
// duplicates collapse. It returns the canonical names of the known fixes
// requested, sorted, or nil. Only the first MaxHeaderValues non-empty
// elements within the first MaxHeaderBytes bytes (a line costing its length
// plus one) are read; an element cut by that bound is ignored whole.
func ParseHeader(values []string) []string {
	var s Set
	budget, count := MaxHeaderBytes, 0
	for _, v := range values {
		if budget--; budget < 0 {
			break
		}
		for {
			elem, rest, more := strings.Cut(v, ",")
			cost := len(elem)
			if more {
				cost++
			}
			if cost > budget {
				return s.Names()
			}
			budget -= cost
			if elem = trimOWS(elem); elem != "" {
				if count++; count > MaxHeaderValues {
					return s.Names()
				}
				s |= lookup(elem)
			}
			if !more {
				break
			}
			v = rest
		}
	}
	return s.Names()
}

// trimOWS removes the optional whitespace of RFC 9110 (spaces and tabs)
// around s.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
