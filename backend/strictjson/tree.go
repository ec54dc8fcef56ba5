package strictjson

import "github.com/obgw/obgw/jsonscan"

// Kind is the JSON type of a node.
type Kind uint8

// The JSON types.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// String names the kind as an error text says it ("must be a string, got
// number").
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	}
	return "object"
}

// Node is one decoded JSON value. The decoder keeps exact types (an amount
// sent as a JSON number must not look like one sent as a string) and the
// literal text of numbers, which encoding/json's generic decoding loses
// (1e3 and 1000 must not look alike to an integer check).
type Node struct {
	// Kind is the JSON type.
	Kind Kind
	// Bool is the value of a boolean.
	Bool bool
	// Replaced tells, for a string decoded with FlagCharacters, that it
	// held invalid UTF-8 or a lone surrogate escape, each replaced by
	// U+FFFD as encoding/json does.
	Replaced bool
	// Text is the decoded value of a string and the literal of a number.
	Text string
	// first and count locate an object's members in tree.members or an
	// array's elements in tree.elems.
	first, count int32
}

// Member is one name/value pair of an object. An object keeps every
// member in body order, duplicates included, so that the checks can name
// them and tell which of two exclusive fields came second.
type Member struct {
	// Key is the decoded member name.
	Key string
	// KeyReplaced tells, with FlagCharacters, that the name held invalid
	// UTF-8 or a lone surrogate escape: such a member matches no field.
	KeyReplaced bool
	// Value is the index of the member's value (Checker.Node).
	Value int32
}

// tree is a decoded JSON document. Nodes, members and elements live in
// three flat slices, so decoding a body costs a handful of allocations
// whatever its size; strings without escapes are substrings of the source.
type tree struct {
	nodes   []Node
	members []Member
	elems   []int32
	// scratch stacks: the members or elements of the objects and arrays
	// being decoded, moved to members/elems when each one closes so that
	// every object's members are contiguous.
	mstack []Member
	estack []int32
	// scratch is where escaped strings are unescaped before they are
	// copied out as Go strings.
	scratch []byte
	// The scanner and the stack of open containers live here rather than
	// on the stack of decode, so that a reused tree does not clear them
	// for every body.
	sc   jsonscan.Scanner
	open [maxDepth]open
}

// root is the index of the top-level value of a body.
const root int32 = 0

// elements returns the element indexes of an array node.
func (t *tree) elements(n *Node) []int32 {
	return t.elems[n.first : n.first+n.count]
}

// objectMembers returns the members of an object node.
func (t *tree) objectMembers(n *Node) []Member {
	return t.members[n.first : n.first+n.count]
}
