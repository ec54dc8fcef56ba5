package mockdata

import (
	"reflect"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/strictjson/strictjsontest"
)

// testNow is the current time of the tests: 13:00 in Norway (CET).
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Bodies are built from maps and edited with strictjsontest, as the other
// strictjson parsers' tests do.
type edit = strictjsontest.Edit

var (
	// set returns an edit that sets the member or element at the dotted
	// path ("cardAcceptorAddress.street", "balances.0.balanceType") to v.
	set = strictjsontest.Set
	// remove, as the value of set, deletes the member.
	remove = strictjsontest.Remove
	// raw is a JSON literal set as is (1.5, 1e3, "\ud800").
	raw = strictjsontest.Raw
	// marshal writes a body without HTML escaping.
	marshal = strictjsontest.Marshal
)

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
	strictjsontest.ExpectOne(t, errs, rc.path, rc.rule)
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
