package jsonscan

// Kind is the kind of a token.
type Kind uint8

// The tokens of JSON text.
const (
	Invalid     Kind = iota // the scan failed: see Scanner.Err
	ObjectStart             // '{'
	ObjectEnd               // '}'
	ArrayStart              // '['
	ArrayEnd                // ']'
	Name                    // a member name
	String                  // a string value
	Number
	True
	False
	Null
	End // the one value is complete and only whitespace follows
)

// Token is one token of the input: input[Start:End] is its text, quotes
// included for strings and names.
type Token struct {
	Kind       Kind
	Start, End int
	// Len is the length of a string or name after unescaping, raw bytes
	// counted as they are.
	Len int
	// Escaped tells that a string or name holds a backslash escape;
	// NonASCII that it holds a raw byte from 0x80 (with Permissive, maybe
	// invalid UTF-8).
	Escaped, NonASCII bool
}

// Policy is what a Scanner does with the characters of strings and member
// names.
type Policy uint8

const (
	// Permissive checks the grammar only, as encoding/json's scanner does:
	// raw C0 controls and malformed escapes fail; invalid UTF-8, lone
	// surrogate escapes and every other code point pass.
	Permissive Policy = iota
	// Refuse also refuses every character the policy of contract section
	// 1 refuses, raw or escaped (escaped controls such as \n included):
	// ErrCharacter. Strings that pass are valid UTF-8.
	Refuse
)

// expect is what the grammar allows next.
type expect uint8

const (
	expValue      expect = iota // the top-level value
	expValueOrEnd               // after '['
	expNameOrEnd                // after '{'
	expColon                    // after a member name
	expCommaOrEnd               // after a member or element
	expEOF                      // after the top-level value
	expNothing                  // after End or an error
)

// frame is one open object or array.
type frame struct {
	object  bool
	partial bool // the current name ends at a fault
	escaped bool // the current name has escapes
	count   int  // members or elements begun
	// nameStart and nameEnd bound the current member name's text between
	// the quotes.
	nameStart, nameEnd int
}

// inlineFrames open containers live in the Scanner itself, so that a
// Scanner on the stack scans contract-bounded input without allocating.
const inlineFrames = MaxDepth

// Scanner splits JSON text (RFC 8259: one value, whitespace around it) into
// tokens, checking the grammar, a Policy for strings and Limits as it goes.
// It keeps no value: callers that need one decode it from the token's
// bytes (Unescape). It knows the path of every token, for error texts
// (AppendPath). The zero Scanner is empty; Reset starts a scan.
//
// encoding/json holds the grammar too, but it cannot tell where a token
// lies, find duplicate member names, or give the path of a fault without
// building the document; hygiene checks every request body on the request
// path without allocating, and the fixes rewrite edits response bodies in
// place by byte offset. That is why this scanner exists; FuzzScanner holds
// it to encoding/json.
type Scanner struct {
	b      []byte
	pos    int
	lim    Limits
	refuse bool
	next   expect
	values int
	depth  int
	frames [inlineFrames]frame
	more   []frame // frames past inlineFrames (only with MaxDepth above it)
	tok    Token
	err    Error
}

// Reset starts the scan of b with policy p within lim. b is only read.
func (s *Scanner) Reset(b []byte, lim Limits, p Policy) {
	s.b, s.pos, s.lim, s.refuse = b, 0, lim, p == Refuse
	s.next, s.values, s.depth = expValue, 0, 0
	s.more = s.more[:0]
	s.tok, s.err = Token{}, Error{}
}

// Token returns the token Next found, valid until the next call of Next
// or Reset. It points into the Scanner, so that reading a field costs no
// copy of the token.
func (s *Scanner) Token() *Token { return &s.tok }

// Err returns why Next returned Invalid.
func (s *Scanner) Err() Error { return s.err }

// Depth returns the number of open objects and arrays.
func (s *Scanner) Depth() int { return s.depth }

// InObject reports whether the innermost open container is an object.
func (s *Scanner) InObject() bool { return s.depth > 0 && s.frame(s.depth).object }

// IsObject reports whether open container d (1 the outermost, Depth the
// innermost) is an object.
func (s *Scanner) IsObject(d int) bool { return d > 0 && d <= s.depth && s.frame(d).object }

// frame returns open container d, 1 the outermost.
func (s *Scanner) frame(d int) *frame {
	if d <= inlineFrames {
		return &s.frames[d-1]
	}
	return &s.more[d-1-inlineFrames]
}

func (s *Scanner) push(object bool) {
	s.depth++
	if s.depth <= inlineFrames {
		s.frames[s.depth-1] = frame{object: object}
	} else {
		s.more = append(s.more[:s.depth-1-inlineFrames], frame{object: object})
	}
}

func (s *Scanner) fail(code Code, start, pos int) Kind {
	s.err = Error{Code: code, Start: start, Pos: pos}
	s.next = expNothing
	s.tok = Token{}
	return Invalid
}

// found makes the token [start, end) of kind k the current one.
func (s *Scanner) found(k Kind, start, end int) Kind {
	t := &s.tok // field by field, as in str
	t.Kind, t.Start, t.End, t.Len, t.Escaped, t.NonASCII = k, start, end, 0, false, false
	return k
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// afterValue sets what may follow a complete value.
func (s *Scanner) afterValue() {
	if s.depth == 0 {
		s.next = expEOF
	} else {
		s.next = expCommaOrEnd
	}
}

// Next scans the next token (Token returns it) and returns its kind:
// Invalid when the input breaks the grammar, the policy or a limit (Err
// says how), End after the value.
func (s *Scanner) Next() Kind {
	b := s.b
	i := skipSpace(b, s.pos)
	switch s.next {
	case expValue:
	case expNameOrEnd:
		if i < len(b) && b[i] == '}' {
			return s.close(ObjectEnd, i)
		}
		return s.name(i)
	case expValueOrEnd:
		if i < len(b) && b[i] == ']' {
			return s.close(ArrayEnd, i)
		}
		s.frame(s.depth).count = 1
	case expColon:
		if i >= len(b) || b[i] != ':' {
			return s.fail(ErrColon, i, i)
		}
		i = skipSpace(b, i+1)
	case expCommaOrEnd:
		f := s.frame(s.depth)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			if f.object {
				return s.name(i)
			}
			f.count++
			break
		}
		if f.object {
			if i < len(b) && b[i] == '}' {
				return s.close(ObjectEnd, i)
			}
			return s.fail(ErrObjectEnd, i, i)
		}
		if i < len(b) && b[i] == ']' {
			return s.close(ArrayEnd, i)
		}
		return s.fail(ErrArrayEnd, i, i)
	case expEOF:
		if i != len(b) {
			return s.fail(ErrTrailing, i, i)
		}
		s.pos, s.next = i, expNothing
		return s.found(End, i, i)
	default:
		return s.tok.Kind
	}
	return s.value(i)
}

func (s *Scanner) close(k Kind, i int) Kind {
	s.depth--
	s.pos = i + 1
	s.afterValue()
	return s.found(k, i, i+1)
}

// counted counts the scalar value s.tok against MaxValues.
func (s *Scanner) counted() Kind {
	s.values++
	if s.lim.MaxValues > 0 && s.values > s.lim.MaxValues {
		return s.fail(ErrValues, s.tok.Start, s.tok.End)
	}
	s.pos = s.tok.End
	s.afterValue()
	return s.tok.Kind
}

// value scans the value starting at i.
func (s *Scanner) value(i int) Kind {
	b := s.b
	if i >= len(b) {
		return s.fail(ErrEOF, i, i)
	}
	switch c := b[i]; c {
	case '{', '[':
		if s.lim.MaxDepth > 0 && s.depth >= s.lim.MaxDepth {
			return s.fail(ErrDepth, i, i)
		}
		s.values++
		if s.lim.MaxValues > 0 && s.values > s.lim.MaxValues {
			return s.fail(ErrValues, i, i)
		}
		s.push(c == '{')
		s.pos = i + 1
		if c == '{' {
			s.next = expNameOrEnd
			return s.found(ObjectStart, i, i+1)
		}
		s.next = expValueOrEnd
		return s.found(ArrayStart, i, i+1)
	case '"':
		if s.str(i, String) == Invalid {
			return Invalid
		}
		return s.counted()
	case 't':
		return s.literal(i, "true", True)
	case 'f':
		return s.literal(i, "false", False)
	case 'n':
		return s.literal(i, "null", Null)
	}
	if c := b[i]; c == '-' || c >= '0' && c <= '9' {
		return s.number(i)
	}
	return s.fail(ErrValue, i, i)
}

func (s *Scanner) literal(i int, lit string, k Kind) Kind {
	if len(s.b)-i < len(lit) || string(s.b[i:i+len(lit)]) != lit {
		return s.fail(ErrValue, i, i)
	}
	s.found(k, i, i+len(lit))
	return s.counted()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// number scans the number starting at i.
func (s *Scanner) number(start int) Kind {
	b := s.b
	i := start
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
		if i < len(b) && isDigit(b[i]) {
			// "0" is a value; what follows it is out of place.
			if s.found(Number, start, i); s.counted() == Invalid {
				return Invalid
			}
			return s.fail(ErrLeadingZero, start, i)
		}
	case i < len(b) && isDigit(b[i]):
		i = digits(b, i)
	default:
		return s.fail(ErrNumberDigit, start, i)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return s.fail(ErrNumberFraction, start, i)
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return s.fail(ErrNumberExponent, start, i)
		}
		i = digits(b, i)
	}
	if s.lim.MaxNumberBytes > 0 && i-start > s.lim.MaxNumberBytes {
		return s.fail(ErrNumberLength, start, start)
	}
	s.found(Number, start, i)
	return s.counted()
}

// name scans the member name starting at i and counts it against
// MaxMembers.
func (s *Scanner) name(i int) Kind {
	b := s.b
	if i >= len(b) || b[i] != '"' {
		return s.fail(ErrName, i, i)
	}
	f := s.frame(s.depth)
	f.nameStart = i + 1
	if s.str(i, Name) == Invalid {
		s.err.InName = true
		f.nameEnd, f.partial, f.escaped = max(s.err.Pos, i+1), true, true
		return Invalid
	}
	end := s.tok.End
	f.nameEnd, f.partial, f.escaped = end-1, false, s.tok.Escaped
	f.count++
	if s.lim.MaxMembers > 0 && f.count > s.lim.MaxMembers {
		return s.fail(ErrMembers, i, end)
	}
	s.pos = end
	s.next = expColon
	return Name
}

// Limits returns the limits of the scan.
func (s *Scanner) Limits() Limits { return s.lim }
