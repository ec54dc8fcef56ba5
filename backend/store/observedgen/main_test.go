package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestObservedMethodsGenerated: observed_methods.go is what observedgen
// writes from the Store interface as it stands (run go generate in
// backend/store after changing it).
func TestObservedMethodsGenerated(t *testing.T) {
	want, err := generate(filepath.Join("..", "store.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "observed_methods.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("backend/store/observed_methods.go is not what observedgen writes from store.go: run go generate ./backend/store")
	}
}
