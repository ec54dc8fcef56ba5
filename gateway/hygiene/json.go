package hygiene

import (
	"fmt"
	"math"

	"github.com/obgw/obgw/jsonscan"
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
	// MaxValues bounds the number of values in the body, objects and
	// arrays included.
	MaxValues int
}

// DefaultJSONLimits are the bounds of contract section 1, the one set that
// package jsonscan fixes (its doc.go says why): nesting 32 deep, strings of
// 4 KiB, numbers of 32 characters, 100 members per object, 65536 values.
// The backend's decoder (backend/strictjson) holds bodies to the same.
var DefaultJSONLimits = JSONLimits{
	MaxDepth:       jsonscan.MaxDepth,
	MaxStringBytes: jsonscan.MaxStringBytes,
	MaxNumberBytes: jsonscan.MaxNumberBytes,
	MaxKeys:        jsonscan.MaxMembers,
	MaxValues:      jsonscan.MaxValues,
}

// MaxJSONDepth caps JSONLimits.MaxDepth, so that the work and memory of one
// check stay bounded whatever the configuration.
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
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultJSONLimits.MaxValues
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
// The scanning, the character policy and the paths are package jsonscan's;
// duplicate names are found here.
func CheckJSON(body []byte, lim JSONLimits) error {
	if len(body) > math.MaxInt32 {
		return &Error{Path: "$", Text: "body is larger than 2 GiB"}
	}
	if len(body) >= 3 && body[0] == 0xef && body[1] == 0xbb && body[2] == 0xbf {
		return &Error{Path: "$", Text: "body starts with a byte order mark (U+FEFF); send the JSON without it"}
	}
	lim = lim.withDefaults()
	s := jsonScanner{b: body}
	s.sc.Reset(body, jsonscan.Limits{
		MaxDepth:       lim.MaxDepth,
		MaxMembers:     lim.MaxKeys,
		MaxValues:      lim.MaxValues,
		MaxStringBytes: lim.MaxStringBytes,
		MaxNumberBytes: lim.MaxNumberBytes,
	}, jsonscan.Refuse)
	return s.document()
}

// keyRef locates a member name in the body.
type keyRef struct {
	hash       uint64 // hash of the unescaped name, set only in objects with a name set
	start, end int32  // the bytes between the quotes
	n          int32  // length in bytes after unescaping
	escaped    bool
}

// jsonScanner holds the state of one CheckJSON call. It lives on the
// caller's stack: the member names of the open objects are kept in inline
// arrays (a slice into the scanner would make it escape), so that only
// unusual documents allocate.
type jsonScanner struct {
	b  []byte
	sc jsonscan.Scanner

	// The names of the members seen in the open objects, innermost last:
	// the first len(keyBuf) in keyBuf, the rest in keyMore.
	nkeys   int
	keyBuf  [128]keyRef
	keyMore []keyRef

	// The name sets of the open objects, by depth: the first
	// len(setBuf) in setBuf, the rest in setMore.
	setBuf  [jsonscan.MaxDepth]nameSet
	setMore []nameSet

	// table is the open-addressing name set of the one large object that
	// holds it (tableBusy); other large objects use a map.
	table     [tableSlots]int32
	tableBusy bool
}

func (s *jsonScanner) set(depth int) *nameSet {
	if depth <= len(s.setBuf) {
		return &s.setBuf[depth-1]
	}
	return &s.setMore[depth-1-len(s.setBuf)]
}

func (s *jsonScanner) document() error {
	for {
		switch s.sc.Next() {
		case jsonscan.Invalid:
			return s.scanError()
		case jsonscan.End:
			return nil
		case jsonscan.ObjectStart:
			d := s.sc.Depth()
			if d <= len(s.setBuf) {
				s.setBuf[d-1] = nameSet{first: s.nkeys}
			} else {
				s.setMore = append(s.setMore[:d-1-len(s.setBuf)], nameSet{first: s.nkeys})
			}
		case jsonscan.ObjectEnd:
			s.closeNames(s.set(s.sc.Depth() + 1))
		case jsonscan.Name:
			tok := s.sc.Token()
			k := keyRef{start: int32(tok.Start + 1), end: int32(tok.End - 1), n: int32(tok.Len), escaped: tok.Escaped}
			if s.addName(s.set(s.sc.Depth()), k) {
				return s.fail(true, "duplicate member name in an object; send each name once")
			}
		}
	}
}

// fail returns an *Error at the scanner's position, naming the member or
// element being scanned when current is set.
func (s *jsonScanner) fail(current bool, format string, args ...any) *Error {
	return &Error{Path: string(s.sc.AppendPath(nil, current, 0)), Text: fmt.Sprintf(format, args...)}
}

// scanError words the scanner's error.
func (s *jsonScanner) scanError() *Error {
	e := s.sc.Err()
	what := "string"
	if e.InName {
		what = "member name"
	}
	switch e.Code {
	case jsonscan.ErrEOF:
		if s.sc.Depth() == 0 {
			return s.fail(true, "body is empty; send one JSON value")
		}
		return s.fail(true, "body ends where a value was expected; the JSON is incomplete")
	case jsonscan.ErrValue:
		return s.fail(true, "invalid JSON at byte %d: expected a value", e.Pos)
	case jsonscan.ErrName:
		return s.fail(false, "invalid JSON at byte %d: expected a member name in double quotes", e.Pos)
	case jsonscan.ErrColon:
		return s.fail(true, "invalid JSON at byte %d: expected ':' after a member name", e.Pos)
	case jsonscan.ErrObjectEnd:
		if e.Pos >= len(s.b) {
			return s.fail(false, "body ends inside an object; the JSON is incomplete")
		}
		return s.fail(false, "invalid JSON at byte %d: expected ',' or '}' in an object", e.Pos)
	case jsonscan.ErrArrayEnd:
		if e.Pos >= len(s.b) {
			return s.fail(false, "body ends inside an array; the JSON is incomplete")
		}
		return s.fail(false, "invalid JSON at byte %d: expected ',' or ']' in an array", e.Pos)
	case jsonscan.ErrTrailing:
		return s.fail(false, "unexpected data after the JSON value at byte %d; send exactly one value", e.Pos)
	case jsonscan.ErrLeadingZero:
		return s.fail(true, "number with a leading zero at byte %d", e.Start)
	case jsonscan.ErrNumberDigit:
		return s.fail(true, "invalid number at byte %d", e.Start)
	case jsonscan.ErrNumberFraction:
		return s.fail(true, "invalid number at byte %d: digits must follow the decimal point", e.Start)
	case jsonscan.ErrNumberExponent:
		return s.fail(true, "invalid number at byte %d: digits must follow the exponent", e.Start)
	case jsonscan.ErrNumberLength:
		return s.fail(true, "number at byte %d is longer than %d characters", e.Start, s.sc.Limits().MaxNumberBytes)
	case jsonscan.ErrStringEOF:
		return s.fail(true, "body ends inside a %s; close it with '\"'", what)
	case jsonscan.ErrEscape:
		return s.fail(true, "%s has an invalid escape sequence at byte %d", what, e.Pos)
	case jsonscan.ErrUEscape:
		return s.fail(true, "%s has an invalid \\u escape at byte %d", what, e.Pos)
	case jsonscan.ErrRawControl:
		return s.fail(true, "%s contains a %s at byte %d; remove it", what, runeText(jsonscan.Control.String(), e.Rune), e.Pos)
	case jsonscan.ErrCharacter:
		switch {
		case e.Class == jsonscan.InvalidUTF8:
			return s.fail(true, "%s has invalid UTF-8 at byte %d; send UTF-8 text", what, e.Pos)
		case e.Escaped:
			return s.fail(true, "%s contains an escaped %s at byte %d; remove it", what, runeText(e.Class.String(), e.Rune), e.Pos)
		}
		return s.fail(true, "%s contains a %s at byte %d; remove it", what, runeText(e.Class.String(), e.Rune), e.Pos)
	case jsonscan.ErrDepth:
		return s.fail(true, "nesting deeper than %d levels at byte %d; flatten the document", s.sc.Limits().MaxDepth, e.Pos)
	case jsonscan.ErrMembers:
		return s.fail(false, "object has more than %d members", s.sc.Limits().MaxMembers)
	case jsonscan.ErrValues:
		return s.fail(true, "body has more than %d JSON values", s.sc.Limits().MaxValues)
	case jsonscan.ErrStringLength:
		return s.fail(true, "%s at byte %d is longer than %d bytes", what, e.Start, s.sc.Limits().MaxStringBytes)
	}
	return s.fail(true, "invalid JSON at byte %d", e.Pos)
}
