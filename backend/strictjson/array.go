package strictjson

// Array is a JSON array being checked, got from Checker.RootArray or
// Object.List: its elements are checked one by one. Its path is base,
// followed by the member name key when not "".
type Array struct {
	c     *Checker
	elems []int32
	base  string
	key   string
}

// Len returns the number of elements.
func (a Array) Len() int {
	return len(a.elems)
}

// Value returns element i.
func (a Array) Value(i int) *Node {
	return &a.c.t.nodes[a.elems[i]]
}

// Path returns the JSON path of element i.
func (a Array) Path(i int) string {
	p := a.base
	if a.key != "" {
		p = keyPath(p, a.key)
	}
	return indexPath(p, i)
}

// Object checks element i as an object whose members must be in fs; ok is
// false (and an error reported) when it is not an object.
func (a Array) Object(i int, fs *FieldSet) (Object, bool) {
	return a.c.object(a.elems[i], Object{base: a.base, key: a.key, index: i}, fs)
}
