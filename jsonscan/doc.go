// Package jsonscan is the one JSON core of obgw: a tokenizer (Scanner),
// string unescaping (Unescape, NextRune), JSONPath rendering (AppendPath,
// AppendName, AppendIndex), the character policy of contract section 1
// (Classify, FindRefused) and the one set of bounds for request bodies
// (Contract). gateway/hygiene (JSON hygiene of every request body),
// backend/strictjson (strict typed decoding of payment and mock-data
// bodies) and gateway/fixes (x-accept-fix rewriting of response bodies)
// all scan with it; gateway/ and backend/ may both import it, and it
// imports nothing but the standard library.
//
// Why not encoding/json: its scanner is not exported, and its decoder
// cannot say where a token lies in the body or what its path is, nor find
// duplicate member names, without building the document. The callers need
// exactly that, on the request path and without allocating. The grammar
// here is RFC 8259's and FuzzScanner holds it to encoding/json: the same
// documents valid, the same string values after Unescape.
//
// # Grammar
//
// One JSON value with optional whitespace around it (RFC 8259). A byte
// order mark is not whitespace, so a body starting with one fails (RFC
// 8259 section 8.1 forbids senders to add it). Top-level scalars are
// valid; which shape a body must have is the caller's business. Errors
// carry a Code and byte offsets, never a message: each caller words its
// own for its own audience.
//
// # Characters (contract section 1)
//
// Bodies and header values are UTF-8. Refused, raw or \u-escaped:
//   - invalid UTF-8 (overlong forms and encoded surrogates included);
//   - C0 controls U+0000-U+001F and DEL U+007F, escaped ones (\n, \t, \r,
//     \b, \f) too in JSON strings, since no field is free multi-line text;
//     header values may hold HTAB (FindRefused's allowTab);
//   - C1 controls U+0080-U+009F;
//   - the bidi embedding, override and isolate controls U+202A-U+202E and
//     U+2066-U+2069;
//   - the noncharacters U+FFFE and U+FFFF;
//   - everything outside the Basic Multilingual Plane (emoji), whether as
//     4-byte UTF-8 or as a \u surrogate pair, and lone surrogate escapes.
//
// Every other code point passes, U+FEFF and U+FFFD inside strings
// included. A Scanner applies this with the Refuse policy; Permissive
// checks the grammar only (as encoding/json does), for callers that decide
// later (strictjson's FlagCharacters) or scan the service's own output
// (fixes).
//
// # Bounds (contract section 1)
//
// The contract says "nesting deeper than 32, and numbers or strings over
// sane bounds" are 400 FORMAT_ERROR; Contract fixes the numbers, for every
// request body, at the gateway and in the backend alike:
//
//	Bound           Value   Why
//	MaxDepth        32      the contract's number
//	MaxMembers      100     the largest object of this API has about 30
//	                        members (a card transaction); 100 leaves room
//	                        and keeps duplicate and unknown-member checks
//	                        small
//	MaxValues       65536   a bulk or a mock-data post of 1000 transactions
//	                        is about 20000 values
//	MaxStringBytes  4096    after unescaping; the longest text field is
//	                        1000 characters (3000 bytes of BMP UTF-8)
//	MaxNumberBytes  32      an int64 is 20 characters, an amount far less
//
// Before this package, hygiene allowed 1000 members and strictjson 100,
// both citing section 1; strictjson bounded no string and hygiene no value
// count. The tighter member bound was kept: every object of the API is far
// below it, and strictjson's checks compare members pairwise.
// gateway/fixes scans the backend's own responses, not a client's, and
// bounds only their depth (its MaxDepth).
//
// # Paths
//
// JSON paths are written in JSONPath style from the root "$": member names
// that are identifiers in dot notation ($.instructedAmount.amount), other
// names in brackets with single quotes ($['a b']), array elements by
// zero-based index ($.paymentIds[3]). Names are shown decoded and cut at 64
// characters, and anything but printable ASCII is written as a \u escape,
// so that a path never carries a control, bidi or invalid character into a
// log or an error body.
package jsonscan
