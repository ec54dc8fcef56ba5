package strictjson

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Bounds of the decoder (contract section 1: nesting deeper than 32 and
// numbers or strings past sane bounds are format errors). Strings are
// bounded by the body size, which the caller bounds.
const (
	maxDepth         = 32
	maxObjectMembers = 100
	maxNodes         = 1 << 16
	maxNumberBytes   = 32
)

// syntaxError is a body that is not JSON, that passes a decoder bound, or
// (with RefuseCharacters) that holds a character a body may not hold.
// segs holds the path from the innermost value outwards.
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
		if sb.Len() > MaxPathBytes {
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
func decodeJSON(src string, chars Characters) (*tree, *syntaxError) {
	t := &tree{}
	if err := t.decode(src, chars); err != nil {
		return nil, err
	}
	return t, nil
}

// decode decodes one JSON document (RFC 8259; nothing but whitespace
// after the value) into t, reusing its slices. A byte order mark is not
// JSON and fails.
func (t *tree) decode(src string, chars Characters) *syntaxError {
	// A body spends about 16 bytes per value (member name, quotes,
	// punctuation), so this sizing seldom grows the slices.
	est := min(len(src)/16+1, maxNodes)
	t.nodes = grow(t.nodes[:0], est)
	t.members = grow(t.members[:0], est)
	t.elems = t.elems[:0]
	t.mstack, t.estack = t.mstack[:0], t.estack[:0]
	d := decoder{s: src, t: t, refuse: chars == RefuseCharacters}
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
	// refuse fails on refused characters (RefuseCharacters) instead of
	// decoding them as encoding/json does.
	refuse bool
}

func (d *decoder) fail(msg string) *syntaxError {
	return &syntaxError{offset: d.i, msg: msg}
}

// charFail reports a refused character of the string being decoded.
func (d *decoder) charFail(msg string) *syntaxError {
	return &syntaxError{offset: d.i, msg: msg, char: true}
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

func (d *decoder) add(n Node) (int32, *syntaxError) {
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
		s, replaced, err := d.str()
		if err != nil {
			return 0, err
		}
		return d.add(Node{Kind: KindString, Text: s, Replaced: replaced})
	case c == 't':
		return d.literal("true", Node{Kind: KindBool, Bool: true})
	case c == 'f':
		return d.literal("false", Node{Kind: KindBool})
	case c == 'n':
		return d.literal("null", Node{Kind: KindNull})
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return 0, d.fail("unexpected " + d.describe())
}

func (d *decoder) literal(lit string, n Node) (int32, *syntaxError) {
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
	return d.add(Node{Kind: KindNumber, Text: d.s[start:d.i]})
}

func (d *decoder) digits() int {
	start := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// str decodes the string starting at the opening quote. A string without
// escapes (and, with FlagCharacters, without invalid UTF-8) is returned as
// a substring of the source, with no copy. replaced tells that invalid
// UTF-8 or a lone surrogate was replaced by U+FFFD (FlagCharacters only).
func (d *decoder) str() (s string, replaced bool, err *syntaxError) {
	d.i++ // opening quote
	start := d.i
	ascii := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			d.i++ // the common case, first
			continue
		}
		switch {
		case c == '"':
			s = d.s[start:d.i]
			if !ascii && !d.refuse && !utf8.ValidString(s) {
				d.i = start
				return d.strSlow()
			}
			d.i++
			return s, false, nil
		case c == '\\':
			d.i = start
			return d.strSlow()
		case c < 0x20:
			return "", false, d.fail("unescaped control character " + runeName(rune(c)) + " in a string")
		case !d.refuse:
			ascii = false // checked once, at the closing quote
		case c == 0x7f:
			return "", false, d.charFail(runeProblem(rune(c), 1))
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if p := runeProblem(r, size); p != "" {
				return "", false, d.charFail(p)
			}
			d.i += size
			continue
		}
		d.i++
	}
	return "", false, d.fail("unterminated string")
}

// strSlow decodes a string with escapes or (with FlagCharacters) invalid
// UTF-8. With FlagCharacters each invalid byte and each lone surrogate
// becomes U+FFFD, as encoding/json decodes them; with RefuseCharacters
// they fail, and so does every other refused character, escaped or not.
func (d *decoder) strSlow() (string, bool, *syntaxError) {
	var b strings.Builder
	replaced := false
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return b.String(), replaced, nil
		case c < 0x20:
			return "", false, d.fail("unescaped control character " + runeName(rune(c)) + " in a string")
		case c == '\\':
			if d.i+1 >= len(d.s) {
				d.i++
				return "", false, d.fail("unterminated string")
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
					return "", false, d.fail("invalid \\u escape in a string")
				}
				if utf16.IsSurrogate(r) {
					// hex4 succeeding at d.i+8 puts d.i+7 within the source.
					r2, ok2 := hex4(d.s, d.i+8)
					pair := ok2 && d.s[d.i+6] == '\\' && d.s[d.i+7] == 'u'
					if pair {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
							d.i += 6
						} else {
							pair = false
						}
					}
					if !pair {
						if d.refuse {
							return "", false, d.charFail("holds a lone surrogate escape; send UTF-8 text")
						}
						// The escape that follows, if any, is decoded
						// on its own.
						r, replaced = utf8.RuneError, true
					}
				}
				d.i += 4
			default:
				d.i++
				return "", false, d.fail("invalid escape in a string")
			}
			if d.refuse {
				if p := runeProblem(r, 2); p != "" {
					return "", false, d.charFail(p)
				}
			}
			b.WriteRune(r)
			d.i += 2
		case c < utf8.RuneSelf:
			if c == 0x7f && d.refuse {
				return "", false, d.charFail(runeProblem(rune(c), 1))
			}
			b.WriteByte(c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if d.refuse {
				if p := runeProblem(r, size); p != "" {
					return "", false, d.charFail(p)
				}
			} else if r == utf8.RuneError && size == 1 {
				replaced = true
			}
			b.WriteRune(r)
			d.i += size
		}
	}
	return "", false, d.fail("unterminated string")
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
	idx, err := d.add(Node{Kind: KindObject})
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
		key, keyReplaced, err := d.str()
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
		t.mstack = append(t.mstack, Member{Key: key, KeyReplaced: keyReplaced, Value: v})
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
	idx, err := d.add(Node{Kind: KindArray})
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
