package strictjsontest

import (
	"testing"
)

func TestSet(t *testing.T) {
	tests := []struct {
		name string
		edit Edit
		want string
	}{
		{"member", Set("a.b", "x"), `{"a":{"b":"x","c":1},"l":[1,{"m":2}]}`},
		{"remove", Set("a.c", Remove), `{"a":{"b":"<&>"},"l":[1,{"m":2}]}`},
		{"element", Set("l.0", Raw("1e3")), `{"a":{"b":"<&>","c":1},"l":[1e3,{"m":2}]}`},
		{"in an element", Set("l.1.m", nil), `{"a":{"b":"<&>","c":1},"l":[1,{"m":null}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"a": map[string]any{"b": "<&>", "c": 1}, "l": []any{1, map[string]any{"m": 2}}}
			tc.edit(body)
			if got := string(Marshal(body)); got != tc.want+"\n" {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestSetPanicsWithoutContainer(t *testing.T) {
	for _, path := range []string{"a.b.c", "l.x.m", "s.t"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set(%q) did not panic", path)
				}
			}()
			Set(path, 1)(map[string]any{"a": map[string]any{"b": "x"}, "l": []any{1}, "s": "v"})
		}()
	}
}
