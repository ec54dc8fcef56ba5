package jsonscan

// The bounds of contract section 1 for request bodies: "nesting deeper than
// 32, and numbers or strings over sane bounds" are 400 FORMAT_ERROR. These
// are the one set of them; gateway/hygiene (every request body, at the
// edge) and backend/strictjson (payment and mock-data bodies) both enforce
// Contract, so that a body the gateway lets through is never refused by the
// backend for a bound, nor the reverse. The package comment says why each
// value was chosen.
const (
	// MaxDepth is the deepest nesting of objects and arrays; a top-level
	// object or array is depth 1. The contract fixes 32.
	MaxDepth = 32
	// MaxMembers bounds the members of one object.
	MaxMembers = 100
	// MaxValues bounds the values of one body, containers included.
	MaxValues = 1 << 16
	// MaxStringBytes bounds every string and member name, in bytes after
	// unescaping ("\u00e6" counts 2, not 6).
	MaxStringBytes = 4096
	// MaxNumberBytes bounds the literal of every number, sign and
	// exponent included.
	MaxNumberBytes = 32
)

// Limits bounds what a Scanner accepts. A zero field bounds nothing.
type Limits struct {
	MaxDepth       int
	MaxMembers     int
	MaxValues      int
	MaxStringBytes int
	MaxNumberBytes int
}

// Contract holds the bounds of contract section 1.
var Contract = Limits{
	MaxDepth:       MaxDepth,
	MaxMembers:     MaxMembers,
	MaxValues:      MaxValues,
	MaxStringBytes: MaxStringBytes,
	MaxNumberBytes: MaxNumberBytes,
}
