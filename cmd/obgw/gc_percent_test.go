package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestGCPercent: without GOGC in the environment the collector's target is
// gcPercent; with it, whatever the runtime read from GOGC stays.
func TestGCPercent(t *testing.T) {
	start := debug.SetGCPercent(-1)
	debug.SetGCPercent(start)
	t.Cleanup(func() { debug.SetGCPercent(start) })

	t.Run("unset", func(t *testing.T) {
		t.Setenv("GOGC", "")
		if err := os.Unsetenv("GOGC"); err != nil { // t.Setenv restores it
			t.Fatal(err)
		}
		debug.SetGCPercent(100)
		setGCPercent()
		if got := debug.SetGCPercent(100); got != gcPercent {
			t.Errorf("GOGC unset: the GC percent is %d, want %d", got, gcPercent)
		}
	})
	t.Run("set", func(t *testing.T) {
		t.Setenv("GOGC", "150")
		debug.SetGCPercent(150) // what the runtime read at start
		setGCPercent()
		if got := debug.SetGCPercent(150); got != 150 {
			t.Errorf("GOGC=150: the GC percent is %d, want the operator's 150", got)
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Setenv("GOGC", "off")
		debug.SetGCPercent(-1)
		setGCPercent()
		if got := debug.SetGCPercent(100); got != -1 {
			t.Errorf("GOGC=off: the GC percent is %d, want off (-1)", got)
		}
	})
}
