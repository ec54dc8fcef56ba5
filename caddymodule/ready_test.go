package caddymodule

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestDownBodyIsJSON: /readyz names every part that is down in valid JSON
// (with two, a Go-quoted slice is not).
func TestDownBodyIsJSON(t *testing.T) {
	var got struct {
		Status string
		Down   []string
	}
	if err := json.Unmarshal(downBody([]string{"database", "redis"}), &got); err != nil ||
		got.Status != "DOWN" || !slices.Equal(got.Down, []string{"database", "redis"}) {
		t.Fatalf("%s: %+v %v", downBody([]string{"database", "redis"}), got, err)
	}
}
