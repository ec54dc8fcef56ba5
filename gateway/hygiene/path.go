package hygiene

import (
	"fmt"
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
