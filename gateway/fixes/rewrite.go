package fixes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"sync"
)

// MaxDepth is the deepest nesting of objects and arrays Rewrite follows;
// the top-level value is depth 1. Deeper bodies are returned unchanged with
// an error wrapping ErrTooDeep.
const MaxDepth = 64

var (
	// ErrInvalidJSON is wrapped by the error of Rewrite for a body that is
	// not one valid JSON value.
	ErrInvalidJSON = errors.New("fixes: invalid JSON")
	// ErrTooDeep is wrapped by the error of Rewrite for a body nested
	// deeper than MaxDepth.
	ErrTooDeep = errors.New("fixes: JSON nested too deep to rewrite")
)

// scanError says where and why the scan of a body stopped.
type scanError struct {
	kind   error
	offset int
	reason string
}

func (e *scanError) Error() string {
	return e.kind.Error() + " at byte " + strconv.Itoa(e.offset) + ": " + e.reason
}

func (e *scanError) Unwrap() error { return e.kind }

// Rewrite turns body, a response in the newest shape, into the legacy shape
// of every registered fix not in inEffect (see the package comment). With
// no such fix, or when nothing in body is affected, it returns body itself.
// On invalid JSON, or JSON nested deeper than MaxDepth, it returns body
// unchanged and an error wrapping ErrInvalidJSON or ErrTooDeep. The result
// keeps member order, whitespace and number digits; body is not modified.
func (r *Registry) Rewrite(body []byte, inEffect Set) ([]byte, error) {
	legacy := r.Legacy(inEffect)
	if legacy.Empty() {
		return body, nil
	}
	return rewrite(body, legacy)
}

// rewriter is the state of one Rewrite: a recursive-descent scan of in
// that, at the end of each object with something to rewrite, edits that
// object's copy in out. Copying is lazy: out holds the output up to input
// position flushed, and the rest is in[flushed:] verbatim, so a position
// in the output is known (at) without copying, and most of the body is
// copied in a few long runs. Nothing is allocated until an object may
// need an edit.
type rewriter struct {
	in      []byte
	pos     int
	flushed int
	out     []byte
	scratch []byte // the object being edited, reused across objects
	legacy  Set
	edited  bool
}

// scratchBuffers keeps the buffers objects are edited in across calls.
var scratchBuffers = sync.Pool{New: func() any { return new([]byte) }}

func rewrite(body []byte, legacy Set) ([]byte, error) {
	// A local rewriter stays on the stack, so updating out needs no GC
	// write barrier.
	scratch := scratchBuffers.Get().(*[]byte)
	w := rewriter{in: body, legacy: legacy, scratch: *scratch}
	err := w.document()
	if err == nil && w.edited {
		w.flush()
	}
	if cap(w.scratch) <= 64<<10 {
		*scratch = w.scratch[:0]
	}
	scratchBuffers.Put(scratch)
	if err != nil || !w.edited {
		return body, err
	}
	return w.out, nil
}

func (w *rewriter) fail(kind error, reason string) error {
	return &scanError{kind: kind, offset: w.pos, reason: reason}
}

func (w *rewriter) document() error {
	w.ws()
	if err := w.value(0, keyOther); err != nil {
		return err
	}
	w.ws()
	if w.pos != len(w.in) {
		return w.fail(ErrInvalidJSON, "data after the JSON value")
	}
	return nil
}

// at returns the output position of input position w.pos.
func (w *rewriter) at() int { return len(w.out) + w.pos - w.flushed }

// flush copies the input up to w.pos to out.
func (w *rewriter) flush() {
	if w.out == nil {
		// Legacy shapes are mostly shorter (quotes dropped, names cut);
		// only cashAccountType grows, by a few bytes per account.
		w.out = make([]byte, 0, len(w.in)+64)
	}
	w.out = append(w.out, w.in[w.flushed:w.pos]...)
	w.flushed = w.pos
}

// ws skips whitespace.
func (w *rewriter) ws() {
	for w.pos < len(w.in) {
		if c := w.in[w.pos]; c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return
		}
		w.pos++
	}
}

// value scans the value at w.pos; key is the member name it is the value
// of (keyOther in arrays and at the top), depth that of its container.
func (w *rewriter) value(depth int, key keyKind) error {
	if w.pos >= len(w.in) {
		return w.fail(ErrInvalidJSON, "unexpected end of input, expected a value")
	}
	switch c := w.in[w.pos]; c {
	case '{':
		return w.object(depth+1, key)
	case '[':
		return w.array(depth + 1)
	case '"':
		_, err := w.str()
		return err
	case 't':
		return w.literal("true")
	case 'f':
		return w.literal("false")
	case 'n':
		return w.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return w.number()
		}
		return w.fail(ErrInvalidJSON, "expected a value")
	}
}

// str skips the string at w.pos (which is '"') and reports whether it has
// escapes.
func (w *rewriter) str() (escaped bool, err error) {
	in := w.in
	for i := w.pos + 1; i < len(in); {
		// Most string bytes need no look: skip them eight at a time.
		for i+8 <= len(in) && !stringSpecial(binary.LittleEndian.Uint64(in[i:])) {
			i += 8
		}
		if i >= len(in) {
			break
		}
		switch c := in[i]; {
		case c == '"':
			w.pos = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(in) {
				w.pos = i
				return escaped, w.fail(ErrInvalidJSON, "unterminated string")
			}
			switch in[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(in) || hex4(in[i+2:i+6]) < 0 {
					w.pos = i
					return escaped, w.fail(ErrInvalidJSON, `\u needs four hex digits`)
				}
				i += 6
			default:
				w.pos = i
				return escaped, w.fail(ErrInvalidJSON, "invalid escape in string")
			}
		case c < 0x20:
			w.pos = i
			return escaped, w.fail(ErrInvalidJSON, "control character in string")
		default:
			i++
		}
	}
	return escaped, w.fail(ErrInvalidJSON, "unterminated string")
}

// stringSpecial reports whether one of the eight bytes of x ends a string
// run: '"', '\\' or a control character (the classic SWAR tests for a zero
// byte and a byte less than n; bytes from 0x80 never match).
func stringSpecial(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0
}

// number scans the number at w.pos, checked against the JSON grammar.
func (w *rewriter) number() error {
	in, i := w.in, w.pos
	if in[i] == '-' {
		i++
	}
	switch {
	case i < len(in) && in[i] == '0':
		i++
	case i < len(in) && in[i] >= '1' && in[i] <= '9':
		i = digits(in, i)
	default:
		return w.fail(ErrInvalidJSON, "invalid number")
	}
	if i < len(in) && in[i] == '.' {
		if i++; i >= len(in) || !isDigit(in[i]) {
			return w.fail(ErrInvalidJSON, "invalid number: digits must follow '.'")
		}
		i = digits(in, i)
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		if i++; i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if i >= len(in) || !isDigit(in[i]) {
			return w.fail(ErrInvalidJSON, "invalid number: digits must follow the exponent")
		}
		i = digits(in, i)
	}
	w.pos = i
	return nil
}

func (w *rewriter) literal(lit string) error {
	if !bytes.HasPrefix(w.in[w.pos:], []byte(lit)) {
		return w.fail(ErrInvalidJSON, "expected a value")
	}
	w.pos += len(lit)
	return nil
}

func (w *rewriter) array(depth int) error {
	if depth > MaxDepth {
		return w.fail(ErrTooDeep, "more than "+strconv.Itoa(MaxDepth)+" levels")
	}
	w.pos++
	w.ws()
	if w.pos < len(w.in) && w.in[w.pos] == ']' {
		w.pos++
		return nil
	}
	for {
		if err := w.value(depth, keyOther); err != nil {
			return err
		}
		w.ws()
		if w.pos >= len(w.in) {
			return w.fail(ErrInvalidJSON, "unexpected end of input in an array")
		}
		switch w.in[w.pos] {
		case ',':
			w.pos++
			w.ws()
		case ']':
			w.pos++
			return nil
		default:
			return w.fail(ErrInvalidJSON, "expected ',' or ']' in an array")
		}
	}
}

func (w *rewriter) object(depth int, parent keyKind) error {
	if depth > MaxDepth {
		return w.fail(ErrTooDeep, "more than "+strconv.Itoa(MaxDepth)+" levels")
	}
	start := w.at()
	w.pos++
	w.ws()
	if w.pos < len(w.in) && w.in[w.pos] == '}' {
		w.pos++
		return nil
	}
	var m members
	for {
		if w.pos >= len(w.in) || w.in[w.pos] != '"' {
			return w.fail(ErrInvalidJSON, "expected a member name")
		}
		keyStart := w.pos
		escaped, err := w.str()
		if err != nil {
			return err
		}
		key := classifyKey(w.in[keyStart+1:w.pos-1], escaped)
		w.ws()
		if w.pos >= len(w.in) || w.in[w.pos] != ':' {
			return w.fail(ErrInvalidJSON, "expected ':' after a member name")
		}
		w.pos++
		w.ws()
		valueStart := w.at()
		if err := w.value(depth, key); err != nil {
			return err
		}
		m.add(key, valueStart, w.at())
		w.ws()
		if w.pos >= len(w.in) {
			return w.fail(ErrInvalidJSON, "unexpected end of input in an object")
		}
		switch w.in[w.pos] {
		case ',':
			w.pos++
			w.ws()
		case '}':
			w.pos++
			w.edit(start, &m, parent)
			return nil
		default:
			return w.fail(ErrInvalidJSON, "expected ',' or '}' in an object")
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// hex4 returns the value of four hex digits, or -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
