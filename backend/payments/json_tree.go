package payments

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonKind is the JSON type of a node.
type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String names the kind as an error text says it ("must be a string, got
// number").
func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	}
	return "object"
}

// node is one JSON value. The decoder keeps exact types (an amount sent as
// a JSON number must not look like one sent as a string) and every member
// of an object in order, duplicates included, so that the checks can name
// them and tell which of two exclusive fields came second.
type node struct {
	kind jsonKind
	// flag is the value of a boolean.
	flag bool
	// text is the decoded value of a string and the literal of a number.
	text string
	// first and count locate an object's members in tree.members or an
	// array's elements in tree.elems.
	first, count int32
}

// member is one name/value pair of an object.
type member struct {
	key string
	val int32
}

// tree is a decoded JSON document. Nodes, members and elements live in
// three flat slices, so decoding a body costs a handful of allocations
// whatever its size; strings without escapes are substrings of src.
//
// Every string of a tree, member names included, is valid UTF-8 free of
// the characters runeProblem refuses: the decoder rejects them with the
// path of the string, so the checks need not look again.
type tree struct {
	nodes   []node
	members []member
	elems   []int32
	// scratch stacks: the members or elements of the objects and arrays
	// being decoded, moved to members/elems when each one closes so that
	// every object's members are contiguous.
	mstack []member
	estack []int32
}

// root is the index of the top-level value.
const root int32 = 0

// Bounds of the decoder (contract section 1: nesting deeper than 32 and
// numbers or strings past sane bounds are format errors). Strings are
// bounded by the body size.
const (
	maxDepth         = 32
	maxObjectMembers = 100
	maxNodes         = 1 << 16
	maxNumberBytes   = 32
	// maxPathBytes cuts the path of a syntax error deep in nested junk.
	maxPathBytes = 256
)

// syntaxError is a body that is not JSON, that passes a decoder bound, or
// that holds a character a body may not hold. segs holds the path from
// the innermost value outwards.
type syntaxError struct {
	segs   []pathSeg
	offset int
	msg    string
	// char marks a refused character: msg is a rule about the string at
	// the path rather than a JSON syntax error.
	char bool
}

// pathSeg is one step of a JSON path: an array index, or a member name
// when index is negative.
type pathSeg struct {
	index int
	key   string
}

// fieldError turns a syntax error into the FieldError a caller reports.
func (e *syntaxError) fieldError() FieldError {
	var sb strings.Builder
	sb.WriteByte('$')
	for i := len(e.segs) - 1; i >= 0; i-- {
		if sb.Len() > maxPathBytes {
			sb.WriteString("...")
			break
		}
		if s := e.segs[i]; s.index >= 0 {
			sb.WriteString(indexPath("", s.index))
		} else {
			sb.WriteString(keyPath("", s.key))
		}
	}
	if e.char {
		return FieldError{Path: sb.String(), Rule: e.msg}
	}
	return FieldError{Path: sb.String(), Rule: "invalid JSON: " + e.msg + " at byte " + strconv.Itoa(e.offset)}
}

// decodeJSON decodes one JSON document into a new tree.
func decodeJSON(src string) (*tree, *syntaxError) {
	t := &tree{}
	if err := t.decode(src); err != nil {
		return nil, err
	}
	return t, nil
}

// decode decodes one JSON document (RFC 8259; nothing but whitespace
// after the value) into t, reusing its slices. A byte order mark is not
// JSON and fails.
func (t *tree) decode(src string) *syntaxError {
	// A payment body spends about 16 bytes per value (member name, quotes,
	// punctuation), so this sizing seldom grows the slices.
	est := min(len(src)/16+1, maxNodes)
	t.nodes = grow(t.nodes[:0], est)
	t.members = grow(t.members[:0], est)
	t.elems = t.elems[:0]
	t.mstack, t.estack = t.mstack[:0], t.estack[:0]
	d := decoder{s: src, t: t}
	d.space()
	if _, err := d.value(0); err != nil {
		return err
	}
	d.space()
	if d.i < len(d.s) {
		return d.fail("unexpected " + d.describe() + " after the JSON value")
	}
	return nil
}

// grow returns s with room for n elements.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	return make([]T, 0, n)
}

type decoder struct {
	s string
	i int
	t *tree
}

func (d *decoder) fail(msg string) *syntaxError {
	return &syntaxError{offset: d.i, msg: msg}
}

// describe names the byte at the current offset for an error text without
// echoing anything unprintable.
func (d *decoder) describe() string {
	if d.i >= len(d.s) {
		return "end of body"
	}
	c := d.s[d.i]
	if c >= 0x20 && c < 0x7f {
		return "character '" + string(rune(c)) + "'"
	}
	r, _ := utf8.DecodeRuneInString(d.s[d.i:])
	return "character " + runeName(r)
}

func (d *decoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) add(n node) (int32, *syntaxError) {
	if len(d.t.nodes) >= maxNodes {
		return 0, d.fail("body has more than " + strconv.Itoa(maxNodes) + " JSON values")
	}
	d.t.nodes = append(d.t.nodes, n)
	return int32(len(d.t.nodes) - 1), nil
}

// value decodes the value at the current offset at nesting depth (0 for
// the top-level value).
func (d *decoder) value(depth int) (int32, *syntaxError) {
	if d.i >= len(d.s) {
		return 0, d.fail("unexpected end of body")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return 0, err
		}
		return d.add(node{kind: kindString, text: s})
	case c == 't':
		return d.literal("true", node{kind: kindBool, flag: true})
	case c == 'f':
		return d.literal("false", node{kind: kindBool})
	case c == 'n':
		return d.literal("null", node{kind: kindNull})
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return 0, d.fail("unexpected " + d.describe())
}

func (d *decoder) literal(lit string, n node) (int32, *syntaxError) {
	if !strings.HasPrefix(d.s[d.i:], lit) {
		return 0, d.fail("unexpected " + d.describe())
	}
	d.i += len(lit)
	return d.add(n)
}

// number checks the RFC 8259 number grammar and keeps the literal.
func (d *decoder) number() (int32, *syntaxError) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && d.s[d.i] >= '1' && d.s[d.i] <= '9':
		d.digits()
	default:
		return 0, d.fail("expected a digit, got " + d.describe())
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return 0, d.fail("expected a digit after '.', got " + d.describe())
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return 0, d.fail("expected a digit in the exponent, got " + d.describe())
		}
	}
	if d.i-start > maxNumberBytes {
		d.i = start
		return 0, d.fail("number longer than " + strconv.Itoa(maxNumberBytes) + " characters")
	}
	return d.add(node{kind: kindNumber, text: d.s[start:d.i]})
}

func (d *decoder) digits() int {
	start := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// charFail reports a refused character of the string being decoded.
func (d *decoder) charFail(msg string) *syntaxError {
	return &syntaxError{offset: d.i, msg: msg, char: true}
}

// str decodes the string starting at the opening quote. A string without
// escapes is returned as a substring of the source, with no copy.
func (d *decoder) str() (string, *syntaxError) {
	d.i++ // opening quote
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return d.s[start : d.i-1], nil
		case c == '\\':
			d.i = start
			return d.strSlow()
		case c < 0x20:
			return "", d.fail("unescaped control character " + runeName(rune(c)) + " in a string")
		case c == 0x7f:
			return "", d.charFail(runeProblem(rune(c), 1))
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if p := runeProblem(r, size); p != "" {
				return "", d.charFail(p)
			}
			d.i += size
			continue
		}
		d.i++
	}
	return "", d.fail("unterminated string")
}

// strSlow decodes a string with escapes.
func (d *decoder) strSlow() (string, *syntaxError) {
	var b strings.Builder
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), nil
		case c < 0x20:
			return "", d.fail("unescaped control character " + runeName(rune(c)) + " in a string")
		case c == '\\':
			if d.i+1 >= len(d.s) {
				d.i++
				return "", d.fail("unterminated string")
			}
			var r rune
			switch e := d.s[d.i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
				d.i += 2
				continue
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				var ok bool
				if r, ok = hex4(d.s, d.i+2); !ok {
					return "", d.fail("invalid \\u escape in a string")
				}
				if utf16.IsSurrogate(r) {
					r2, ok2 := hex4(d.s, d.i+8)
					if !ok2 || d.i+7 >= len(d.s) || d.s[d.i+6] != '\\' || d.s[d.i+7] != 'u' {
						return "", d.charFail("holds a lone surrogate escape; send UTF-8 text")
					}
					if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
						return "", d.charFail("holds a lone surrogate escape; send UTF-8 text")
					}
					d.i += 6
				}
				d.i += 4
			default:
				d.i++
				return "", d.fail("invalid escape in a string")
			}
			if p := runeProblem(r, 2); p != "" {
				return "", d.charFail(p)
			}
			b.WriteRune(r)
			d.i += 2
		case c < 0x80:
			if c == 0x7f {
				return "", d.charFail(runeProblem(rune(c), 1))
			}
			b.WriteByte(c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if p := runeProblem(r, size); p != "" {
				return "", d.charFail(p)
			}
			b.WriteString(d.s[d.i : d.i+size])
			d.i += size
		}
	}
	return "", d.fail("unterminated string")
}

// hex4 reads four hex digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (d *decoder) object(depth int) (int32, *syntaxError) {
	if depth > maxDepth {
		return 0, d.fail("nesting deeper than " + strconv.Itoa(maxDepth))
	}
	idx, err := d.add(node{kind: kindObject})
	if err != nil {
		return 0, err
	}
	t := d.t
	mark := len(t.mstack)
	d.i++ // '{'
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return idx, nil
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return 0, d.fail("expected a member name, got " + d.describe())
		}
		key, err := d.str()
		if err != nil {
			if err.char {
				err.msg = "has a member name that " + err.msg
			}
			return 0, err
		}
		if len(t.mstack)-mark >= maxObjectMembers {
			return 0, d.fail("object with more than " + strconv.Itoa(maxObjectMembers) + " members")
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return 0, d.fail("expected ':' after a member name, got " + d.describe())
		}
		d.i++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			err.segs = append(err.segs, pathSeg{index: -1, key: key})
			return 0, err
		}
		t.mstack = append(t.mstack, member{key: key, val: v})
		d.space()
		if d.i < len(d.s) && d.s[d.i] == ',' {
			d.i++
			d.space()
			continue
		}
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			break
		}
		return 0, d.fail("expected ',' or '}' after an object member, got " + d.describe())
	}
	t.nodes[idx].first = int32(len(t.members))
	t.nodes[idx].count = int32(len(t.mstack) - mark)
	t.members = append(t.members, t.mstack[mark:]...)
	t.mstack = t.mstack[:mark]
	return idx, nil
}

func (d *decoder) array(depth int) (int32, *syntaxError) {
	if depth > maxDepth {
		return 0, d.fail("nesting deeper than " + strconv.Itoa(maxDepth))
	}
	idx, err := d.add(node{kind: kindArray})
	if err != nil {
		return 0, err
	}
	t := d.t
	mark := len(t.estack)
	d.i++ // '['
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return idx, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			err.segs = append(err.segs, pathSeg{index: len(t.estack) - mark})
			return 0, err
		}
		t.estack = append(t.estack, v)
		d.space()
		if d.i < len(d.s) && d.s[d.i] == ',' {
			d.i++
			d.space()
			continue
		}
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			break
		}
		return 0, d.fail("expected ',' or ']' after an array element, got " + d.describe())
	}
	t.nodes[idx].first = int32(len(t.elems))
	t.nodes[idx].count = int32(len(t.estack) - mark)
	t.elems = append(t.elems, t.estack[mark:]...)
	t.estack = t.estack[:mark]
	return idx, nil
}

// elements returns the element indexes of an array node.
func (t *tree) elements(n *node) []int32 {
	return t.elems[n.first : n.first+n.count]
}

// objectMembers returns the members of an object node.
func (t *tree) objectMembers(n *node) []member {
	return t.members[n.first : n.first+n.count]
}
