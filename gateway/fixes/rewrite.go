package fixes

import (
	"errors"
	"strconv"
	"sync"

	"github.com/obgw/obgw/jsonscan"
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

// rewriter is the state of one Rewrite: a scan of in (jsonscan's tokens)
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
	scratch []byte       // the object being edited, reused across objects
	objects []openObject // the open objects, innermost last
	legacy  Set
	edited  bool
	sc      jsonscan.Scanner
}

// openObject is an object being scanned: where it starts in the output,
// the member name it is the value of, and its members of interest so far.
type openObject struct {
	start  int
	parent keyKind
	// key is the member whose value is being scanned, valueStart where
	// that value starts in the output.
	key        keyKind
	valueStart int
	m          members
}

// buffers are the buffers of one Rewrite, kept across calls.
type buffers struct {
	scratch []byte
	objects []openObject
}

var rewriteBuffers = sync.Pool{New: func() any { return new(buffers) }}

func rewrite(body []byte, legacy Set) ([]byte, error) {
	// A local rewriter stays on the stack, so updating out needs no GC
	// write barrier.
	bufs := rewriteBuffers.Get().(*buffers)
	w := rewriter{in: body, legacy: legacy, scratch: bufs.scratch, objects: bufs.objects[:0]}
	err := w.document()
	if err == nil && w.edited {
		w.flush()
	}
	if cap(w.scratch) <= 64<<10 {
		bufs.scratch = w.scratch[:0]
	}
	if cap(w.objects) <= MaxDepth {
		bufs.objects = w.objects[:0]
	}
	rewriteBuffers.Put(bufs)
	if err != nil || !w.edited {
		return body, err
	}
	return w.out, nil
}

// document scans the body, recording the members of interest of each
// object and editing each object as it ends.
func (w *rewriter) document() error {
	s := &w.sc
	// Responses are the backend's own, not a client's: only their depth is
	// bounded, not by contract section 1's bounds.
	s.Reset(w.in, jsonscan.Limits{MaxDepth: MaxDepth}, jsonscan.Permissive)
	for {
		k := s.Next()
		tok := s.Token()
		var end int // where a container that ended ends in the output
		switch k {
		case jsonscan.Invalid:
			return w.scanError()
		case jsonscan.End:
			w.pos = len(w.in)
			return nil
		case jsonscan.Name:
			o := &w.objects[len(w.objects)-1]
			o.key = classifyKey(w.in[tok.Start+1:tok.End-1], tok.Escaped)
			continue
		case jsonscan.ObjectStart, jsonscan.ArrayStart:
			start := w.at(tok.Start)
			parent := keyOther
			if d := s.Depth(); s.IsObject(d - 1) {
				p := &w.objects[len(w.objects)-1]
				p.valueStart, parent = start, p.key
			}
			if k == jsonscan.ObjectStart {
				w.objects = append(w.objects, openObject{start: start, parent: parent})
			}
			continue
		case jsonscan.ObjectEnd:
			w.pos = tok.End
			o := &w.objects[len(w.objects)-1]
			w.objects = w.objects[:len(w.objects)-1]
			w.edit(o.start, &o.m, o.parent)
			end = w.at(w.pos)
		case jsonscan.ArrayEnd:
			end = w.at(tok.End)
		default:
			if s.InObject() {
				p := &w.objects[len(w.objects)-1]
				p.m.add(p.key, w.at(tok.Start), w.at(tok.End))
			}
			continue
		}
		if s.InObject() {
			p := &w.objects[len(w.objects)-1]
			p.m.add(p.key, p.valueStart, end)
		}
	}
}

// scanError words the scanner's error.
func (w *rewriter) scanError() error {
	e := w.sc.Err()
	offset, kind := e.Pos, ErrInvalidJSON
	var reason string
	switch e.Code {
	case jsonscan.ErrEOF:
		reason = "unexpected end of input, expected a value"
	case jsonscan.ErrValue:
		reason = "expected a value"
	case jsonscan.ErrName:
		reason = "expected a member name"
	case jsonscan.ErrColon:
		reason = "expected ':' after a member name"
	case jsonscan.ErrObjectEnd:
		reason = "expected ',' or '}' in an object"
		if e.Pos >= len(w.in) {
			reason = "unexpected end of input in an object"
		}
	case jsonscan.ErrArrayEnd:
		reason = "expected ',' or ']' in an array"
		if e.Pos >= len(w.in) {
			reason = "unexpected end of input in an array"
		}
	case jsonscan.ErrTrailing:
		reason = "data after the JSON value"
	case jsonscan.ErrLeadingZero:
		// The number is "0"; the digit after it is out of place.
		switch {
		case w.sc.Depth() == 0:
			reason = "data after the JSON value"
		case w.sc.InObject():
			reason = "expected ',' or '}' in an object"
		default:
			reason = "expected ',' or ']' in an array"
		}
	case jsonscan.ErrNumberDigit:
		offset, reason = e.Start, "invalid number"
	case jsonscan.ErrNumberFraction:
		offset, reason = e.Start, "invalid number: digits must follow '.'"
	case jsonscan.ErrNumberExponent:
		offset, reason = e.Start, "invalid number: digits must follow the exponent"
	case jsonscan.ErrStringEOF:
		reason = "unterminated string"
		if e.Pos >= len(w.in) {
			offset = e.Start
		}
	case jsonscan.ErrEscape:
		reason = "invalid escape in string"
	case jsonscan.ErrUEscape:
		reason = `\u needs four hex digits`
	case jsonscan.ErrRawControl:
		reason = "control character in string"
	case jsonscan.ErrDepth:
		kind, reason = ErrTooDeep, "more than "+strconv.Itoa(MaxDepth)+" levels"
	default:
		reason = "invalid JSON"
	}
	return &scanError{kind: kind, offset: offset, reason: reason}
}

// at returns the output position of input position p.
func (w *rewriter) at(p int) int { return len(w.out) + p - w.flushed }

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

// digits returns the end of the run of decimal digits at b[i:].
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
