package strictjsontest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Edit changes a body built from maps (map[string]any and []any) before
// it is marshalled.
type Edit func(body any)

// removeMarker is the type of Remove.
type removeMarker struct{}

// Remove is the value that makes Set delete the member.
var Remove = removeMarker{}

// Raw is a JSON literal set as is (1.5, 1e3, "\ud800").
func Raw(s string) json.RawMessage { return json.RawMessage(s) }

// Set returns an Edit that sets the member or element at the dotted path
// ("creditorAddress.country", "payments.0.creditorName") to v, or deletes
// the member when v is Remove. It panics when the path does not lead to a
// container: that is a mistake of the test.
func Set(path string, v any) Edit {
	return func(root any) {
		segs := strings.Split(path, ".")
		cur := root
		for _, s := range segs[:len(segs)-1] {
			cur = step(cur, s)
		}
		last := segs[len(segs)-1]
		switch c := cur.(type) {
		case map[string]any:
			if v == Remove {
				delete(c, last)
			} else {
				c[last] = v
			}
		case []any:
			c[index(last)] = v
		default:
			panic("strictjsontest.Set: no container at " + path)
		}
	}
}

func step(cur any, s string) any {
	switch c := cur.(type) {
	case map[string]any:
		return c[s]
	case []any:
		return c[index(s)]
	}
	panic("strictjsontest.Set: no container at " + s)
}

func index(s string) int {
	i, err := strconv.Atoi(s)
	if err != nil {
		panic("strictjsontest.Set: " + s + " is not an index")
	}
	return i
}

// Marshal writes v without HTML escaping. The test bodies are maps,
// slices, strings, numbers and raw literals, which always marshal; it
// panics otherwise.
func Marshal(v any) []byte {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("strictjsontest.Marshal: " + err.Error())
	}
	return []byte(sb.String())
}
