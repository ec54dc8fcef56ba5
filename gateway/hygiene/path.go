package hygiene

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// RequestTarget names the request's path in errors, as the signing string
// does.
const RequestTarget = "(request-target)"

// CheckPath checks a request's decoded path (URL.Path): valid UTF-8 and no
// control character (C0, DEL or C1, NUL included). Resource ids are
// opaque but plain text; a path that breaks these rules names no resource,
// and would otherwise reach the limiter, the context token (whose JSON
// replaces invalid UTF-8) and the database (PostgreSQL refuses NUL and
// invalid UTF-8 in text) as bytes none of them can keep.
func CheckPath(path string) error {
	for i := 0; i < len(path); {
		c := path[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path contains a %s at byte %d of the decoded path; send plain text ids", runeText("control character", rune(c)), i)}
		}
		r, size := utf8.DecodeRuneInString(path[i:])
		if r == utf8.RuneError && size == 1 {
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path has invalid UTF-8 at byte %d of the decoded path; percent-encode UTF-8 only", i)}
		}
		if r <= 0x9f {
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path contains a %s at byte %d of the decoded path; send plain text ids", runeText("C1 control character", r), i)}
		}
		i += size
	}
	return nil
}

// CheckRequestPath checks the path of a request line, decoded (URL.Path)
// and as sent (escaped), for what two readers of one path could read
// differently: Caddy's routes match the path cleaned, and an upstream
// (a servlet container above all) normalises it in its own way. Refused:
//   - dot segments ("." and "..", sent plain or percent-encoded), which
//     route to one policy and resolve, upstream, to another resource;
//   - ";" (path parameters: "/..;/" is a dot segment to Tomcat and Jetty,
//     and "balances;x" the balances to them but no route here);
//   - a backslash, which some servers read as a slash;
//   - an empty segment ("//"), which some collapse and others keep;
//   - an encoded slash (%2F), which splits a segment for one reader only.
//
// No resource of the interface has such a path.
func CheckRequestPath(decoded, escaped string) error {
	if strings.Contains(escaped, "%2F") || strings.Contains(escaped, "%2f") {
		return &Error{Path: RequestTarget, Text: "the path must not contain an encoded slash (%2F)"}
	}
	for i, c := range []byte(decoded) {
		switch c {
		case ';':
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path must not contain ';' (path parameters), found at byte %d of the decoded path", i)}
		case '\\':
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path must not contain a backslash, found at byte %d of the decoded path", i)}
		}
	}
	// Segment by segment, without splitting: every request pays this.
	for i, rest := 0, decoded; ; i++ {
		s, after, more := strings.Cut(rest, "/")
		switch {
		case s == "." || s == "..":
			return &Error{Path: RequestTarget, Text: fmt.Sprintf("the path must not contain a dot segment (%q); send the path of the resource itself", s)}
		case s == "" && i > 0 && more:
			return &Error{Path: RequestTarget, Text: "the path must not contain an empty segment (//)"}
		}
		if !more {
			return nil
		}
		rest = after
	}
}
