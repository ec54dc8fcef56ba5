package strictjsontest

import (
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/strictjson"
)

// recorder is a testing.TB that records failures instead of failing;
// the helpers call no other method of it.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestExpectOne(t *testing.T) {
	one := []strictjson.FieldError{{Path: "$.a", Rule: "is required"}}
	tests := []struct {
		name       string
		errs       []strictjson.FieldError
		path, rule string
		fail       bool
	}{
		{"valid", nil, "", "", false},
		{"valid refused", one, "", "", true},
		{"match", one, "$.a", "required", false},
		{"other path", one, "$.b", "required", true},
		{"other rule", one, "$.a", "too long", true},
		{"two", append(one, one...), "$.a", "required", true},
		{"long rule", []strictjson.FieldError{{Path: "$.a", Rule: strings.Repeat("x", 201)}}, "$.a", "x", true},
	}
	for _, tc := range tests {
		r := &recorder{}
		ExpectOne(r, tc.errs, tc.path, tc.rule)
		if r.failed != tc.fail {
			t.Errorf("%s: failed %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}

func TestCheckFieldErrors(t *testing.T) {
	tests := []struct {
		name string
		errs []strictjson.FieldError
		fail bool
	}{
		{"fine", []strictjson.FieldError{{Path: "$['a\\u00E6']", Rule: "is not a known field"}}, false},
		{"no $", []strictjson.FieldError{{Path: "a", Rule: "r"}}, true},
		{"empty rule", []strictjson.FieldError{{Path: "$", Rule: ""}}, true},
		{"non-ASCII path", []strictjson.FieldError{{Path: "$['æ']", Rule: "r"}}, true},
		{"control in rule", []strictjson.FieldError{{Path: "$", Rule: "a\nb"}}, true},
		{"too many", make([]strictjson.FieldError, strictjson.MaxFieldErrors+1), true},
	}
	for _, tc := range tests {
		r := &recorder{}
		CheckFieldErrors(r, tc.errs)
		if r.failed != tc.fail {
			t.Errorf("%s: failed %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}
