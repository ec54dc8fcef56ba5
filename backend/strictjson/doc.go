// Package strictjson decodes and checks JSON request bodies strictly,
// reporting every broken rule as a FieldError naming its JSON path
// ("$.creditorAddress.country", "$[3].transactionAmount.amount"), so that
// a TPP developer can fix a body in one round. backend/payments and
// backend/sandbox/mockdata build their body parsers on it.
//
// The decoder is its own rather than encoding/json, because the checks
// need what encoding/json's generic decoding loses: exact JSON types and
// number literals (1e3 and 1000, or "12" and 12, must not look alike),
// every member of an object in body order with duplicates (duplicates are
// refused, and of two exclusive fields the second can be named), and a
// path for syntax errors. It builds its tree from the tokens of
// jsonscan.Scanner, the one JSON scanner of obgw (RFC 8259: a byte order
// mark is not JSON), within the one set of bounds of contract section 1
// that jsonscan fixes and the gateway's hygiene check enforces too:
// nesting 32 deep, 100 members per object, 65536 values, strings of 4096
// bytes, number literals of 32 characters. A body is decoded into flat
// slices, with strings without escapes kept as substrings of the body, so
// decoding costs a handful of allocations whatever the size of the body.
//
// Characters (contract section 1; the policy is jsonscan's): invalid
// UTF-8, lone surrogate escapes, C0 and C1 controls and DEL (escaped ones
// too: no field of these bodies is multi-line), the bidi controls
// U+202A-U+202E and U+2066-U+2069, the noncharacters U+FFFE and U+FFFF and
// everything outside the Basic Multilingual Plane (emoji) are refused. The caller chooses where:
// RefuseCharacters fails the decoding at the path of the first string
// holding one, anywhere in the body; FlagCharacters decodes strings as
// encoding/json does and lets the text getters refuse them at the path of
// the field, among the body's other errors.
//
// A Checker holds a decoded body and the FieldErrors found in it, at most
// MaxFieldErrors. Object and Array walk it: every getter reports what is
// wrong with its field (missing, null where required, wrong JSON type,
// blank, too long, not matching a format) and returns ok=false exactly
// when it reported something, so that a rule relating two fields is
// checked only when both passed their own checks. Unknown members are
// refused, naming the field they were probably meant to be; null counts
// as absent, and so does an empty optional string. Paths are built only
// when an error names them, so a valid body costs no path strings.
package strictjson
