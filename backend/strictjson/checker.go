package strictjson

import "strconv"

// Checker holds one decoded body and the FieldErrors found in it. The
// zero value is ready for Decode; a Checker may be reused for body after
// body (its slices are kept), but is not safe for concurrent use.
type Checker struct {
	t     tree
	chars Characters
	errorList
}

// Decode decodes body into c, dropping the previous body and its errors.
// On failure (not JSON, past a decoder bound, or with RefuseCharacters a
// refused character) it returns the one FieldError that says why; the
// caller bounds the body's size first. The decoded strings are substrings
// of body.
func (c *Checker) Decode(body string, chars Characters) []FieldError {
	c.errorList = errorList{}
	c.chars = chars
	if err := c.t.decode(body, chars); err != nil {
		return []FieldError{err.fieldError()}
	}
	return nil
}

// Reset drops the errors, which belong to the caller, keeping the slices
// for the next Decode: for a Checker going back to a pool.
func (c *Checker) Reset() {
	c.errorList = errorList{}
}

// Capacity returns how many values c holds room for, so that a pool can
// drop a Checker grown by a large body.
func (c *Checker) Capacity() int {
	return cap(c.t.nodes)
}

// Add reports the broken rule at path. Past MaxFieldErrors the last error
// says there are more, and further ones are dropped.
func (c *Checker) Add(path, rule string) {
	c.add(path, rule)
}

// Errors returns the FieldErrors reported since Decode, nil when none.
// They belong to the caller: the next Decode starts a new list.
func (c *Checker) Errors() []FieldError {
	return c.errs
}

// Full reports whether MaxFieldErrors were reported, so that checking
// more is wasted.
func (c *Checker) Full() bool {
	return c.full
}

// Node returns the value at index i (a Member.Value).
func (c *Checker) Node(i int32) *Node {
	return &c.t.nodes[i]
}

// RootObject checks the top-level value as an object of fs at "$".
func (c *Checker) RootObject(fs *FieldSet) (Object, bool) {
	return c.object(root, Object{base: "$", index: -1}, fs)
}

// RootArray checks that the top-level value is an array of min to max
// elements, at "$"; what names the elements in error texts ("card
// transactions").
func (c *Checker) RootArray(what string, min, max int) (Array, bool) {
	n := c.Node(root)
	if rule := c.arrayProblem(n, what, min, max); rule != "" {
		c.add("$", rule)
		return Array{}, false
	}
	return Array{c: c, elems: c.t.elements(n), base: "$"}, true
}

// arrayProblem returns why n is not an array of min to max elements, or "".
func (c *Checker) arrayProblem(n *Node, what string, min, max int) string {
	if n.Kind != KindArray {
		return "must be an array of " + what + ", got " + n.Kind.String()
	}
	if int(n.count) < min || int(n.count) > max {
		return "holds " + strconv.Itoa(int(n.count)) + " " + what + "; send " + strconv.Itoa(min) + " to " + strconv.Itoa(max)
	}
	return ""
}

// object checks that node i is an object whose member names are all in
// fs, each at most once, with at as its path. Unknown members are refused:
// a misspelt optional field would otherwise be dropped without a word. It
// returns ok=false only when the node is not an object.
func (c *Checker) object(i int32, at Object, fs *FieldSet) (Object, bool) {
	n := c.Node(i)
	at.c = c
	if n.Kind != KindObject {
		c.add(at.Path(), "must be an object, got "+n.Kind.String())
		return Object{}, false
	}
	ms := c.t.objectMembers(n)
	at.members = ms
	for j, m := range ms {
		if m.KeyReplaced || !contains(fs.Names, m.Key) {
			c.add(at.At(m.Key), unknownRule(m.Key, fs))
			continue
		}
		for _, prev := range ms[:j] {
			if prev.Key == m.Key {
				c.add(at.At(m.Key), "appears more than once; send each field once")
				break
			}
		}
	}
	return at, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
