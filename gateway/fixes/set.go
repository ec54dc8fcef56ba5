package fixes

import "strings"

// Set is a set of known fixes, one bit each. The zero Set is empty.
type Set uint8

// setStrings holds String for every Set, so the x-accept-fix response
// header costs no allocation.
var setStrings = func() (t [1 << len(known)]string) {
	for s := range t {
		t[s] = strings.Join(Set(s).Names(), ",")
	}
	return t
}()

// Has reports whether the fix named name (ASCII case-insensitive) is in s.
func (s Set) Has(name string) bool {
	b := lookup(name)
	return b != 0 && s&b != 0
}

// Empty reports whether s holds no fix.
func (s Set) Empty() bool { return s&(1<<len(known)-1) == 0 }

// Names returns the canonical names in s, sorted; nil when s is empty.
func (s Set) Names() []string {
	if s.Empty() {
		return nil
	}
	var out []string
	for i, k := range known {
		if s&(1<<i) != 0 {
			out = append(out, k)
		}
	}
	return out
}

// String returns the sorted names in s joined by "," (no space), the value
// of the x-accept-fix response header; "" when s is empty.
func (s Set) String() string { return setStrings[s&(1<<len(known)-1)] }
