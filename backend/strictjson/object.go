package strictjson

// Object is one JSON object being checked, got from Checker.RootObject,
// Object.Child or Array.Object. Its path is base, followed by the member
// name key when not "" and the array index when not negative: built only
// when needed, so that checking a valid body costs no path strings.
//
// Every getter reports what is wrong with its field and returns ok=false
// exactly when it reported something; an absent optional field gives the
// zero value and ok=true.
type Object struct {
	c       *Checker
	members []Member
	base    string
	key     string
	index   int
}

// Presence is what a field lookup found.
type Presence uint8

const (
	// Absent is an optional field missing or null.
	Absent Presence = iota
	// Invalid is a field for which an error was reported (required field
	// missing, wrong type or value).
	Invalid
	// Valid is a field present that passed its checks.
	Valid
)

// Path returns the JSON path of the object.
func (o Object) Path() string {
	p := o.base
	if o.key != "" {
		p = keyPath(p, o.key)
	}
	if o.index >= 0 {
		p = indexPath(p, o.index)
	}
	return p
}

// At returns the path of the member name.
func (o Object) At(name string) string {
	return keyPath(o.Path(), name)
}

// Anchored returns o with its path built once, so that the paths of the
// many fields of a large object (a bulk's payment) do not build it again.
func (o Object) Anchored() Object {
	o.base, o.key, o.index = o.Path(), "", -1
	return o
}

// Members returns the members of the object in body order, duplicates and
// unknown members included.
func (o Object) Members() []Member {
	return o.members
}

// Report adds a FieldError at the member name.
func (o Object) Report(name, rule string) {
	o.c.add(o.At(name), rule)
}

// lookup returns the value of member name; present is false when it is
// missing or null (null counts as absent, as OpenAPI-generated clients
// send it for unset optional fields).
func (o Object) lookup(name string) (n *Node, idx int32, present bool) {
	for _, m := range o.members {
		if m.Key == name && !m.KeyReplaced {
			n = &o.c.t.nodes[m.Value]
			return n, m.Value, n.Kind != KindNull
		}
	}
	return nil, 0, false
}

// Lookup returns the value of member name, nil when missing; present is
// false when it is missing or null (null counts as absent).
func (o Object) Lookup(name string) (n *Node, present bool) {
	n, _, present = o.lookup(name)
	return n, present
}

// Has reports whether member name is present and not null.
func (o Object) Has(name string) bool {
	_, _, ok := o.lookup(name)
	return ok
}

// Missing reports the absent required field name, whose Lookup gave n.
func (o Object) Missing(name string, n *Node) {
	if n != nil {
		o.Report(name, "is required and must not be null")
		return
	}
	o.Report(name, "is required")
}

// find returns the value of member name and its index, Valid when it is
// present; when it is missing or null, Absent, or Invalid with the error
// reported when it is required.
func (o Object) find(name string, required bool) (*Node, int32, Presence) {
	n, idx, ok := o.lookup(name)
	switch {
	case ok:
		return n, idx, Valid
	case required:
		o.Missing(name, n)
		return nil, 0, Invalid
	}
	return nil, 0, Absent
}

// Field returns the value of member name, reporting it when required and
// absent, or not of kind k.
func (o Object) Field(name string, required bool, k Kind) (*Node, Presence) {
	// lookup inlined rather than find called: every text field goes
	// through here.
	n, _, ok := o.lookup(name)
	if !ok {
		if required {
			o.Missing(name, n)
			return nil, Invalid
		}
		return nil, Absent
	}
	if n.Kind != k {
		o.Report(name, "must be a "+k.String()+", got "+n.Kind.String())
		return nil, Invalid
	}
	return n, Valid
}

// PlainText returns the string field name. A required text must not be
// empty or blank; an optional one that is empty counts as absent. Its
// characters are checked (contract section 1), here or by the decoder.
func (o Object) PlainText(name string, required bool) (string, bool) {
	n, p := o.Field(name, required, KindString)
	if p != Valid {
		return "", p == Absent
	}
	if blank(n.Text) {
		if required {
			o.Report(name, "must not be empty")
			return "", false
		}
		if n.Text == "" {
			return "", true
		}
	}
	if o.c.chars == FlagCharacters {
		if p := textProblem(n.Text, n.Replaced); p != "" {
			o.Report(name, p)
			return "", false
		}
	}
	return n.Text, true
}

// Text returns the string field name of at most maxRunes characters.
func (o Object) Text(name string, required bool, maxRunes int) (string, bool) {
	s, ok := o.PlainText(name, required)
	if !ok || s == "" {
		return s, ok
	}
	if p := lengthProblem(s, maxRunes); p != "" {
		o.Report(name, p)
		return "", false
	}
	return s, true
}

// Code returns a text field that must pass valid (which bounds its
// length), with rule as the error text when it does not.
func (o Object) Code(name string, required bool, valid func(string) bool, rule string) (string, bool) {
	s, ok := o.PlainText(name, required)
	if !ok || s == "" {
		return s, ok
	}
	if !valid(s) {
		o.Report(name, rule)
		return "", false
	}
	return s, true
}

// Bool returns the boolean field name (a JSON boolean). With lenient set,
// the JSON strings "true" and "false" are accepted too.
func (o Object) Bool(name string, required, lenient bool) (bool, bool) {
	n, _, p := o.find(name, required)
	if p != Valid {
		return false, p == Absent
	}
	switch {
	case n.Kind == KindBool:
		return n.Bool, true
	case lenient && n.Kind == KindString && n.Text == "true":
		return true, true
	case lenient && n.Kind == KindString && n.Text == "false":
		return false, true
	case lenient:
		o.Report(name, `must be true or false (a JSON boolean, or the string "true" or "false")`)
	default:
		o.Report(name, "must be a boolean, got "+n.Kind.String())
	}
	return false, false
}

// Child returns the nested object field name, whose members must be in
// fs.
func (o Object) Child(name string, required bool, fs *FieldSet) (Object, Presence) {
	_, idx, p := o.find(name, required)
	if p != Valid {
		return Object{}, p
	}
	obj, ok := o.c.object(idx, Object{base: o.Path(), key: name, index: -1}, fs)
	if !ok {
		return Object{}, Invalid
	}
	return obj, Valid
}

// List returns the array field name, of min to max elements; what names
// the elements in error texts ("structured references").
func (o Object) List(name string, required bool, what string, min, max int) (Array, Presence) {
	n, _, p := o.find(name, required)
	if p != Valid {
		return Array{}, p
	}
	if rule := o.c.arrayProblem(n, what, min, max); rule != "" {
		o.Report(name, rule)
		return Array{}, Invalid
	}
	return Array{c: o.c, elems: o.c.t.elements(n), base: o.Path(), key: name}, Valid
}
