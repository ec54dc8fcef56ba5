package strictjson

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/obgw/obgw/jsonscan"
)

// The decoder's bounds are contract section 1's, the one set that package
// jsonscan fixes and gateway/hygiene enforces too (jsonscan's doc.go says
// why each value): nesting 32 deep, 100 members per object, 65536 values,
// strings of 4096 bytes, number literals of 32 characters.
const (
	maxDepth         = jsonscan.MaxDepth
	maxObjectMembers = jsonscan.MaxMembers
	maxNodes         = jsonscan.MaxValues
	maxStringBytes   = jsonscan.MaxStringBytes
	maxNumberBytes   = jsonscan.MaxNumberBytes
)

// syntaxError is a body that is not JSON, that passes a decoder bound, or
// (with RefuseCharacters) that holds a character a body may not hold.
type syntaxError struct {
	path   string
	offset int
	msg    string
	// char marks a refused character: msg is a rule about the string at
	// the path rather than a JSON syntax error.
	char bool
}

// fieldError turns a syntax error into the FieldError a caller reports.
func (e *syntaxError) fieldError() FieldError {
	if e.char {
		return FieldError{Path: e.path, Rule: e.msg}
	}
	return FieldError{Path: e.path, Rule: "invalid JSON: " + e.msg + " at byte " + strconv.Itoa(e.offset)}
}

// decodeJSON decodes one JSON document into a new tree.
func decodeJSON(src string, chars Characters) (*tree, *syntaxError) {
	t := &tree{}
	if err := t.decode(src, chars); err != nil {
		return nil, err
	}
	return t, nil
}

// open is an object or array being decoded: its node, where its members
// or elements start on the scratch stack, and the name of the member whose
// value is being decoded.
type open struct {
	node        int32
	mark        int
	key         string
	keyReplaced bool
}

// decode decodes one JSON document (RFC 8259; nothing but whitespace
// after the value) into t, reusing its slices. A byte order mark is not
// JSON and fails. The tokens are jsonscan's; this builds the tree.
func (t *tree) decode(src string, chars Characters) *syntaxError {
	// A body spends about 16 bytes per value (member name, quotes,
	// punctuation), so this sizing seldom grows the slices.
	est := min(len(src)/16+1, maxNodes)
	t.nodes = grow(t.nodes[:0], est)
	t.members = grow(t.members[:0], est)
	t.elems = t.elems[:0]
	t.mstack, t.estack = t.mstack[:0], t.estack[:0]
	refuse := chars == RefuseCharacters
	policy := jsonscan.Permissive
	if refuse {
		policy = jsonscan.Refuse
	}
	s := &t.sc
	// The scanner reads bytes; src is only read, so it is viewed as bytes
	// in place rather than copied, and the strings kept are substrings of
	// src.
	s.Reset(unsafe.Slice(unsafe.StringData(src), len(src)), jsonscan.Contract, policy)
	stack := &t.open
	for {
		k := s.Next()
		var idx int32
		switch k {
		case jsonscan.Invalid:
			return scanError(s, src)
		case jsonscan.End:
			return nil
		case jsonscan.ObjectStart, jsonscan.ArrayStart:
			kind := KindObject
			if k == jsonscan.ArrayStart {
				kind = KindArray
			}
			t.addNode().Kind = kind
			mark := len(t.mstack)
			if kind == KindArray {
				mark = len(t.estack)
			}
			stack[s.Depth()-1] = open{node: int32(len(t.nodes) - 1), mark: mark}
			continue
		case jsonscan.Name:
			o := &stack[s.Depth()-1]
			o.key, o.keyReplaced = t.text(src, s.Token(), refuse)
			continue
		case jsonscan.ObjectEnd:
			o := &stack[s.Depth()]
			n := &t.nodes[o.node]
			n.first = int32(len(t.members))
			n.count = int32(len(t.mstack) - o.mark)
			t.members = append(t.members, t.mstack[o.mark:]...)
			t.mstack = t.mstack[:o.mark]
			idx = o.node
		case jsonscan.ArrayEnd:
			o := &stack[s.Depth()]
			n := &t.nodes[o.node]
			n.first = int32(len(t.elems))
			n.count = int32(len(t.estack) - o.mark)
			t.elems = append(t.elems, t.estack[o.mark:]...)
			t.estack = t.estack[:o.mark]
			idx = o.node
		default:
			tok := s.Token()
			n := t.addNode()
			switch k {
			case jsonscan.String:
				n.Kind = KindString
				n.Text, n.Replaced = t.text(src, tok, refuse)
			case jsonscan.Number:
				n.Kind, n.Text = KindNumber, src[tok.Start:tok.End]
			case jsonscan.True:
				n.Kind, n.Bool = KindBool, true
			case jsonscan.False:
				n.Kind = KindBool
			}
			idx = int32(len(t.nodes) - 1)
		}
		// A value is complete: it is the next member or element of its
		// container.
		if d := s.Depth(); d > 0 {
			if o := &stack[d-1]; s.InObject() {
				t.mstack = append(t.mstack, Member{Key: o.key, KeyReplaced: o.keyReplaced, Value: idx})
			} else {
				t.estack = append(t.estack, idx)
			}
		}
	}
}

// addNode appends a zero node and returns it. It is set field by field:
// appending a composite literal builds it on the stack and copies it, and
// the copy's wide loads stall on the literal's byte stores.
func (t *tree) addNode() *Node {
	t.nodes = append(t.nodes, Node{})
	return &t.nodes[len(t.nodes)-1]
}

// text returns the decoded value of a string or member name token. A
// string without escapes (and, with FlagCharacters, without invalid UTF-8)
// is a substring of the source, with no copy. With FlagCharacters each
// invalid byte and each lone surrogate becomes U+FFFD, as encoding/json
// decodes them, and replaced says so; with RefuseCharacters the scanner
// has refused them.
func (t *tree) text(src string, tok *jsonscan.Token, refuse bool) (s string, replaced bool) {
	raw := src[tok.Start+1 : tok.End-1]
	if !tok.Escaped && (refuse || !tok.NonASCII || utf8.ValidString(raw)) {
		return raw, false
	}
	t.scratch, replaced = jsonscan.Unescape(t.scratch[:0], unsafe.Slice(unsafe.StringData(raw), len(raw)))
	return string(t.scratch), replaced
}

// grow returns s with room for n elements.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	return make([]T, 0, n)
}

// scanError words the scanner's error at the path of the value at fault
// (the object or array at fault for a missing ',', ':' or name).
func scanError(s *jsonscan.Scanner, src string) *syntaxError {
	e := s.Err()
	current, offset := !e.InName, e.Pos
	var msg string
	switch e.Code {
	case jsonscan.ErrEOF:
		msg = "unexpected end of body"
	case jsonscan.ErrValue:
		msg = "unexpected " + describe(src, e.Pos)
	case jsonscan.ErrName:
		current, msg = false, "expected a member name, got "+describe(src, e.Pos)
	case jsonscan.ErrColon:
		current, msg = false, "expected ':' after a member name, got "+describe(src, e.Pos)
	case jsonscan.ErrObjectEnd:
		current, msg = false, "expected ',' or '}' after an object member, got "+describe(src, e.Pos)
	case jsonscan.ErrArrayEnd:
		current, msg = false, "expected ',' or ']' after an array element, got "+describe(src, e.Pos)
	case jsonscan.ErrTrailing:
		msg = "unexpected " + describe(src, e.Pos) + " after the JSON value"
	case jsonscan.ErrLeadingZero:
		// The number is "0"; the digit after it is out of place.
		current = false
		switch {
		case s.Depth() == 0:
			msg = "unexpected " + describe(src, e.Pos) + " after the JSON value"
		case s.InObject():
			msg = "expected ',' or '}' after an object member, got " + describe(src, e.Pos)
		default:
			msg = "expected ',' or ']' after an array element, got " + describe(src, e.Pos)
		}
	case jsonscan.ErrNumberDigit:
		msg = "expected a digit, got " + describe(src, e.Pos)
	case jsonscan.ErrNumberFraction:
		msg = "expected a digit after '.', got " + describe(src, e.Pos)
	case jsonscan.ErrNumberExponent:
		msg = "expected a digit in the exponent, got " + describe(src, e.Pos)
	case jsonscan.ErrNumberLength:
		msg, offset = "number longer than "+strconv.Itoa(maxNumberBytes)+" characters", e.Start
	case jsonscan.ErrStringEOF:
		msg, offset = "unterminated string", len(src)
	case jsonscan.ErrEscape:
		msg, offset = "invalid escape in a string", e.Pos+1
	case jsonscan.ErrUEscape:
		msg = "invalid \\u escape in a string"
	case jsonscan.ErrRawControl:
		msg = "unescaped control character " + runeName(e.Rune) + " in a string"
	case jsonscan.ErrCharacter:
		msg = runeProblem(e.Rune, 2)
		switch e.Class {
		case jsonscan.Surrogate:
			msg = "holds a lone surrogate escape; send UTF-8 text"
		case jsonscan.InvalidUTF8:
			msg = runeProblem(utf8.RuneError, 1)
		}
		if e.InName {
			msg = "has a member name that " + msg
		}
		return &syntaxError{path: string(s.AppendPath(nil, current, MaxPathBytes)), offset: offset, msg: msg, char: true}
	case jsonscan.ErrDepth:
		msg = "nesting deeper than " + strconv.Itoa(maxDepth)
	case jsonscan.ErrMembers:
		current, msg = false, "object with more than "+strconv.Itoa(maxObjectMembers)+" members"
	case jsonscan.ErrValues:
		msg = "body has more than " + strconv.Itoa(maxNodes) + " JSON values"
	case jsonscan.ErrStringLength:
		msg, offset = "string longer than "+strconv.Itoa(maxStringBytes)+" bytes", e.Start
	default:
		msg = "unexpected " + describe(src, e.Pos)
	}
	return &syntaxError{path: string(s.AppendPath(nil, current, MaxPathBytes)), offset: offset, msg: msg}
}

// describe names the byte at offset i for an error text without echoing
// anything unprintable.
func describe(src string, i int) string {
	if i >= len(src) {
		return "end of body"
	}
	c := src[i]
	if c >= 0x20 && c < 0x7f {
		return "character '" + string(rune(c)) + "'"
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	return "character " + runeName(r)
}
