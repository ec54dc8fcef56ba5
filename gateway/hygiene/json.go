package hygiene

import (
	"bytes"
	"fmt"
	"math"
	"unicode/utf8"
)

// JSONLimits bounds what CheckJSON accepts. A zero (or negative) field takes
// its value from DefaultJSONLimits, so JSONLimits{} means the defaults.
// MaxDepth is capped at MaxJSONDepth.
type JSONLimits struct {
	// MaxDepth is the deepest allowed nesting of objects and arrays; a
	// top-level object is depth 1. The contract fixes 32.
	MaxDepth int
	// MaxStringBytes bounds every string, member names included, in bytes
	// after unescaping (so "\u00e6" counts 2, not 6).
	MaxStringBytes int
	// MaxNumberBytes bounds the text of every number, sign and exponent
	// included.
	MaxNumberBytes int
	// MaxKeys bounds the number of members of one object.
	MaxKeys int
}

// DefaultJSONLimits are the bounds of contract section 1: nesting 32 deep,
// strings of 4 KiB, numbers of 32 characters (an int64 or a decimal amount
// fits easily), 1000 members per object. Request bodies of this API are far
// below all of them.
var DefaultJSONLimits = JSONLimits{
	MaxDepth:       32,
	MaxStringBytes: 4096,
	MaxNumberBytes: 32,
	MaxKeys:        1000,
}

// MaxJSONDepth caps JSONLimits.MaxDepth: the scanner recurses once per
// level, and the stack must stay bounded whatever the configuration.
const MaxJSONDepth = 1000

func (l JSONLimits) withDefaults() JSONLimits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultJSONLimits.MaxDepth
	}
	l.MaxDepth = min(l.MaxDepth, MaxJSONDepth)
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultJSONLimits.MaxStringBytes
	}
	if l.MaxNumberBytes <= 0 {
		l.MaxNumberBytes = DefaultJSONLimits.MaxNumberBytes
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultJSONLimits.MaxKeys
	}
	return l
}

// CheckJSON validates a whole JSON document in one pass without building
// it: RFC 8259 syntax with exactly one value and nothing but whitespace
// after it; valid UTF-8; none of the code points the contract forbids, raw
// or \u-escaped, in member names and values (C0 and C1 controls, DEL,
// U+FFFE/U+FFFF, the bidi controls U+202A-U+202E and U+2066-U+2069, and
// anything outside the Basic Multilingual Plane, including surrogate pairs
// and lone surrogates); no member name twice in one object (compared after
// unescaping); and the depth and size bounds of lim. The error is an *Error
// whose Path is the JSON path of the offending value or member name.
func CheckJSON(body []byte, lim JSONLimits) error {
	if len(body) > math.MaxInt32 {
		return &Error{Path: "$", Text: "body is larger than 2 GiB"}
	}
	s := jsonScanner{b: body, lim: lim.withDefaults()}
	if err := s.document(); err != nil {
		err.Path = s.renderPath()
		return err
	}
	return nil
}

// keyRef locates a string token in the body.
type keyRef struct {
	hash       uint64 // hash of the unescaped name, set only in objects with a name set
	start, end int32  // the bytes between the quotes (end is where scanning stopped on error)
	n          int32  // length in bytes after unescaping
	escaped    bool
}

// pathSeg is one step of a JSON path: a member name, or an array index when
// index >= 0.
type pathSeg struct {
	key     keyRef
	index   int
	partial bool // the name was cut before the character at fault
}

// jsonScanner holds the state of one CheckJSON call. It lives on the
// caller's stack: the member names of the open objects are kept in inline
// arrays (the recursion would make any slice into the scanner escape), so
// that only unusual documents allocate.
type jsonScanner struct {
	b   []byte
	pos int
	lim JSONLimits

	// The names of the members seen in the open objects, innermost last:
	// the first len(keyBuf) in keyBuf, the rest in keyMore.
	nkeys   int
	keyBuf  [128]keyRef
	keyMore []keyRef

	// table is the open-addressing name set of the one large object that
	// holds it (tableBusy); other large objects use a map.
	table     [tableSlots]int32
	tableBusy bool

	path []pathSeg // filled while unwinding from an error, innermost first
}

func (s *jsonScanner) fail(format string, args ...any) *Error {
	return &Error{Text: fmt.Sprintf(format, args...)}
}

func (s *jsonScanner) document() *Error {
	b := s.b
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return s.fail("body starts with a byte order mark (U+FEFF); send the JSON without it")
	}
	s.skipSpace()
	if s.pos == len(b) {
		return s.fail("body is empty; send one JSON value")
	}
	if err := s.value(0); err != nil {
		return err
	}
	s.skipSpace()
	if s.pos != len(b) {
		return s.fail("unexpected data after the JSON value at byte %d; send exactly one value", s.pos)
	}
	return nil
}

func (s *jsonScanner) skipSpace() {
	b, i := s.b, s.pos
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	s.pos = i
}

// value scans one value starting at s.pos (no leading whitespace); depth is
// the nesting depth of the container holding it.
func (s *jsonScanner) value(depth int) *Error {
	if s.pos >= len(s.b) {
		return s.fail("body ends where a value was expected; the JSON is incomplete")
	}
	switch c := s.b[s.pos]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.fail("invalid JSON at byte %d: expected a value", s.pos)
}

func (s *jsonScanner) literal(lit string) *Error {
	if !bytes.HasPrefix(s.b[s.pos:], []byte(lit)) {
		return s.fail("invalid JSON at byte %d: expected a value", s.pos)
	}
	s.pos += len(lit)
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *jsonScanner) number() *Error {
	b, start := s.b, s.pos
	i := start
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
		if i < len(b) && isDigit(b[i]) {
			return s.fail("number with a leading zero at byte %d", start)
		}
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return s.fail("invalid number at byte %d", start)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return s.fail("invalid number at byte %d: digits must follow the decimal point", start)
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return s.fail("invalid number at byte %d: digits must follow the exponent", start)
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i-start > s.lim.MaxNumberBytes {
		return s.fail("number at byte %d is longer than %d characters", start, s.lim.MaxNumberBytes)
	}
	s.pos = i
	return nil
}

func (s *jsonScanner) array(depth int) *Error {
	if depth > s.lim.MaxDepth {
		return s.fail("nesting deeper than %d levels at byte %d; flatten the document", s.lim.MaxDepth, s.pos)
	}
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.b) && s.b[s.pos] == ']' {
		s.pos++
		return nil
	}
	for index := 0; ; index++ {
		if err := s.value(depth); err != nil {
			s.path = append(s.path, pathSeg{index: index})
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.b) {
			return s.fail("body ends inside an array; the JSON is incomplete")
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
			continue
		case ']':
			s.pos++
			return nil
		}
		return s.fail("invalid JSON at byte %d: expected ',' or ']' in an array", s.pos)
	}
}

func (s *jsonScanner) object(depth int) *Error {
	if depth > s.lim.MaxDepth {
		return s.fail("nesting deeper than %d levels at byte %d; flatten the document", s.lim.MaxDepth, s.pos)
	}
	s.pos++ // '{'
	s.skipSpace()
	if s.pos < len(s.b) && s.b[s.pos] == '}' {
		s.pos++
		return nil
	}
	names := nameSet{first: s.nkeys}
	for count := 1; ; count++ {
		if s.pos >= len(s.b) || s.b[s.pos] != '"' {
			return s.fail("invalid JSON at byte %d: expected a member name in double quotes", s.pos)
		}
		k, err := s.str(true)
		if err != nil {
			s.path = append(s.path, pathSeg{key: k, index: -1, partial: true})
			return err
		}
		if count > s.lim.MaxKeys {
			return s.fail("object has more than %d members", s.lim.MaxKeys)
		}
		if s.addName(&names, k) {
			s.path = append(s.path, pathSeg{key: k, index: -1})
			return s.fail("duplicate member name in an object; send each name once")
		}
		s.skipSpace()
		if s.pos >= len(s.b) || s.b[s.pos] != ':' {
			s.path = append(s.path, pathSeg{key: k, index: -1})
			return s.fail("invalid JSON at byte %d: expected ':' after a member name", s.pos)
		}
		s.pos++
		s.skipSpace()
		if err := s.value(depth); err != nil {
			s.path = append(s.path, pathSeg{key: k, index: -1})
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.b) {
			return s.fail("body ends inside an object; the JSON is incomplete")
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
			continue
		case '}':
			s.pos++
			s.closeNames(&names)
			return nil
		}
		return s.fail("invalid JSON at byte %d: expected ',' or '}' in an object", s.pos)
	}
}

// decodeStringRune decodes one character of a string already validated by
// str, escapes included.
func decodeStringRune(b []byte, i int) (rune, int) {
	c := b[i]
	if c != '\\' {
		if c < utf8.RuneSelf {
			return rune(c), i + 1
		}
		r, size := utf8.DecodeRune(b[i:])
		return r, i + size
	}
	switch b[i+1] {
	case 'u':
		r, _ := hex4(b, i+2)
		return r, i + 6
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	}
	return rune(b[i+1]), i + 2 // '"', '\\', '/'
}

// hex4 decodes the four hex digits at b[i:i+4].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// str scans a string token starting at its opening quote, checks every
// character and returns where its content lies. On error the returned
// keyRef ends just before the offending character, so that a path naming it
// never echoes that character.
func (s *jsonScanner) str(isKey bool) (keyRef, *Error) {
	what := "string"
	if isKey {
		what = "member name"
	}
	b := s.b
	i := s.pos + 1
	k := keyRef{start: int32(i)}
	n := 0
	for {
		j := plainRun(b, i)
		n += j - i
		i = j
		k.end = int32(i)
		if i >= len(b) {
			return k, s.fail("body ends inside a %s; close it with '\"'", what)
		}
		switch c := b[i]; {
		case c == '"':
			k.n = int32(n)
			s.pos = i + 1
			if n > s.lim.MaxStringBytes {
				return k, s.fail("%s at byte %d is longer than %d bytes", what, k.start-1, s.lim.MaxStringBytes)
			}
			return k, nil
		case c == '\\':
			k.escaped = true
			if i+1 >= len(b) {
				return k, s.fail("body ends inside a %s; close it with '\"'", what)
			}
			switch b[i+1] {
			case '"', '\\', '/':
				n++
				i += 2
				continue
			case 'b', 'f', 'n', 'r', 't':
				r, _ := decodeStringRune(b, i)
				return k, s.fail("%s contains an escaped %s at byte %d; remove it", what, runeText("control character", r), i)
			case 'u':
			default:
				return k, s.fail("%s has an invalid escape sequence at byte %d", what, i)
			}
			r, ok := hex4(b, i+2)
			if !ok {
				return k, s.fail("%s has an invalid \\u escape at byte %d", what, i)
			}
			if r >= 0xd800 && r <= 0xdbff && i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo, ok := hex4(b, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				}
			}
			if why := forbiddenRune(r); why != "" {
				return k, s.fail("%s contains an escaped %s at byte %d; remove it", what, runeText(why, r), i)
			}
			n += utf8.RuneLen(r)
			i += 6
		case c < utf8.RuneSelf: // C0 control or DEL
			return k, s.fail("%s contains a %s at byte %d; remove it", what, runeText("control character", rune(c)), i)
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return k, s.fail("%s has invalid UTF-8 at byte %d; send UTF-8 text", what, i)
			}
			if why := forbiddenRune(r); why != "" {
				return k, s.fail("%s contains a %s at byte %d; remove it", what, runeText(why, r), i)
			}
			n += size
			i += size
		}
	}
}

// plainStringByte marks the bytes a string can hold as they are: printable
// ASCII except '"' and '\\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun returns the index of the first byte at or after i that is not a
// plain string byte, testing eight bytes at a time.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		if x&msb|(x-0x20*lsb)&^x&msb|hasZeroByte(x^('"'*lsb))|hasZeroByte(x^('\\'*lsb))|hasZeroByte(x^(0x7f*lsb)) != 0 {
			break
		}
	}
	for i < len(b) && plainStringByte[b[i]] {
		i++
	}
	return i
}

// hasZeroByte is non-zero iff some byte of x is zero.
func hasZeroByte(x uint64) uint64 { return (x - lsb) &^ x & msb }
