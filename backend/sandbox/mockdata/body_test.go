package mockdata

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testNow is the current time of the tests: 13:00 in Norway (CET).
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// remove, as the value of set, deletes the member.
type removeMarker struct{}

var remove = removeMarker{}

// raw is a JSON literal set as is (1.5, 1e3, "\ud800").
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// edit changes a body built from maps before it is marshalled.
type edit func(v any)

// set returns an edit that sets the member or element at the dotted path
// ("cardAcceptorAddress.street", "balances.0.balanceType") to v.
func set(path string, v any) edit {
	return func(root any) {
		segs := strings.Split(path, ".")
		cur := root
		for _, s := range segs[:len(segs)-1] {
			cur = step(cur, s)
		}
		last := segs[len(segs)-1]
		switch c := cur.(type) {
		case map[string]any:
			if v == remove {
				delete(c, last)
			} else {
				c[last] = v
			}
		case []any:
			i, _ := strconv.Atoi(last)
			c[i] = v
		default:
			panic("set: no container at " + path)
		}
	}
}

func step(cur any, s string) any {
	switch c := cur.(type) {
	case map[string]any:
		return c[s]
	case []any:
		i, err := strconv.Atoi(s)
		if err != nil {
			panic("step: " + s + " is not an index")
		}
		return c[i]
	}
	panic("step: no container at " + s)
}

// marshal writes v without HTML escaping; the test bodies are maps,
// slices, strings, numbers and raw literals, which always marshal.
func marshal(v any) []byte {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("marshal: " + err.Error())
	}
	return []byte(sb.String())
}

// ruleCase is one row of the rule tables: edits applied to a valid body,
// and the one FieldError expected (none when path is empty).
type ruleCase struct {
	name  string
	edits []edit
	body  string    // used as the whole body instead of the edited one
	now   time.Time // testNow when zero
	path  string
	rule  string // fragment of the expected rule text
}

func (rc ruleCase) nowOr() time.Time {
	if rc.now.IsZero() {
		return testNow
	}
	return rc.now
}

// checkErrors asserts that errs is exactly the one error rc expects, or
// nothing for a valid case.
func checkErrors(t *testing.T, rc ruleCase, errs []FieldError) {
	t.Helper()
	if rc.path == "" {
		if len(errs) != 0 {
			t.Fatalf("valid body refused: %v", errs)
		}
		return
	}
	if len(errs) != 1 {
		t.Fatalf("want 1 error at %s (%q), got %d: %v", rc.path, rc.rule, len(errs), errs)
	}
	if errs[0].Path != rc.path || !strings.Contains(errs[0].Rule, rc.rule) {
		t.Fatalf("want %s: ...%s..., got %v", rc.path, rc.rule, errs[0])
	}
	if len(errs[0].Rule) > 200 {
		t.Errorf("rule text is %d bytes, want < 200: %q", len(errs[0].Rule), errs[0].Rule)
	}
}

// parseCase is a ruleCase for a parser returning T, with a check of the
// parsed value for valid cases.
type parseCase[T any] struct {
	ruleCase
	check func(t *testing.T, v T)
}

// bad is an invalid case: edits, and the one error expected.
func bad[T any](name, path, rule string, edits ...edit) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, path: path, rule: rule, edits: edits}}
}

// good is a valid case with a check of the parsed value (may be nil).
func good[T any](name string, check func(*testing.T, T), edits ...edit) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, edits: edits}, check: check}
}

// rawBody is a case with a whole body of its own.
func rawBody[T any](name, body, path, rule string) parseCase[T] {
	return parseCase[T]{ruleCase: ruleCase{name: name, body: body, path: path, rule: rule}}
}

// runParseCases runs cases against parse, each on base() with its edits.
func runParseCases[T any](t *testing.T, base func() any, parse func([]byte, time.Time) (T, []FieldError), cases []parseCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.body)
			if tc.body == "" {
				v := base()
				for _, e := range tc.edits {
					e(v)
				}
				b = marshal(v)
			}
			v, errs := parse(b, tc.nowOr())
			checkErrors(t, tc.ruleCase, errs)
			if tc.path != "" {
				if !reflect.ValueOf(&v).Elem().IsZero() {
					t.Errorf("value returned with errors: %+v", v)
				}
				return
			}
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

// equal returns a check that the parsed value is want.
func equal[T any](want T) func(*testing.T, T) {
	return func(t *testing.T, got T) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	}
}
