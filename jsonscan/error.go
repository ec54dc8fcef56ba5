package jsonscan

// Code says why a Scanner stopped. The scanner words no message: its
// callers answer different audiences (a TPP developer reading a
// tppMessage, an operator reading a log) and each says it its own way, from
// the code and the offsets of Error.
type Code uint8

// The reasons a scan fails.
const (
	ErrNone Code = iota
	// Grammar (RFC 8259).
	ErrEOF       // the input ends where a value is expected; Pos is len(input)
	ErrValue     // no value starts at Pos (a bad literal starts there too)
	ErrName      // no member name (no '"') at Pos
	ErrColon     // no ':' at Pos after a member name
	ErrObjectEnd // no ',' or '}' at Pos after a member (Pos may be len(input))
	ErrArrayEnd  // no ',' or ']' at Pos after an element (Pos may be len(input))
	ErrTrailing  // something at Pos after the one value
	// Numbers: Start is where the number starts.
	ErrNumberDigit    // no digit at Pos after the sign
	ErrNumberFraction // no digit at Pos after '.'
	ErrNumberExponent // no digit at Pos in the exponent
	// ErrLeadingZero is a digit at Pos after a leading zero ("01"). By the
	// grammar the number is "0" and the digit is the next token, out of
	// place; it has a code of its own so that a caller can say "leading
	// zero" instead of "expected ',' or ']'".
	ErrLeadingZero
	// Strings and member names: Start is the opening quote.
	ErrStringEOF  // the input ends inside the string; Pos is len(input), or a final backslash
	ErrEscape     // the backslash at Pos starts no escape
	ErrUEscape    // the \u at Pos is not followed by four hex digits
	ErrRawControl // the C0 control character Rune at Pos is not escaped
	// ErrCharacter is a character the policy refuses (Class), Rune at Pos;
	// Escaped tells that it was written as an escape starting at Pos. Only
	// with the Refuse policy.
	ErrCharacter
	// Bounds (Limits).
	ErrDepth        // the '{' or '[' at Pos nests deeper than MaxDepth
	ErrMembers      // the member name ending at Pos is one more than MaxMembers
	ErrValues       // the value before Pos (or the container at Pos) is one more than MaxValues
	ErrStringLength // the string from Start to Pos (its closing quote) decodes to more than MaxStringBytes
	ErrNumberLength // the number at Start is longer than MaxNumberBytes
)

// Error is where and why a scan stopped.
type Error struct {
	Code Code
	// Start is the start of the token at fault; Pos is the byte at fault
	// (see Code).
	Start, Pos int
	// Rune and Class are the character at fault (ErrRawControl,
	// ErrCharacter); Escaped tells that it was written as an escape.
	Rune    rune
	Class   Class
	Escaped bool
	// InName tells that the fault is in a member name rather than in a
	// value.
	InName bool
}
