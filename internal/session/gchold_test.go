package session

import (
	"runtime/debug"
	"testing"
)

// TestHoldGCRestores: overlapping loads raise the collector's target once and the last one
// restores what the process had; a small file and a process with a higher target or the
// collector off are left alone.
func TestHoldGCRestores(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	a := holdGC(holdGCAbove + 1)
	b := holdGC(holdGCAbove + 1)
	if p := debug.SetGCPercent(holdGCPercent); p != holdGCPercent {
		t.Fatalf("during the loads: %d", p)
	}
	a()
	if p := debug.SetGCPercent(holdGCPercent); p != holdGCPercent {
		t.Fatalf("one load still running: %d", p)
	}
	b()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("after the loads: %d, want 100", p)
	}
	holdGC(holdGCAbove)()
	for _, prev := range []int{-1, 800} {
		debug.SetGCPercent(prev)
		done := holdGC(holdGCAbove + 1)
		if p := debug.SetGCPercent(prev); p != prev {
			t.Fatalf("GOGC %d became %d", prev, p)
		}
		done()
		if p := debug.SetGCPercent(100); p != prev {
			t.Fatalf("GOGC %d restored as %d", prev, p)
		}
	}
	// Turned off (gcstart's deferred first cycle) or changed while a load runs: not undone.
	debug.SetGCPercent(-1)
	done := holdGC(holdGCAbove + 1)
	debug.SetGCPercent(100) // the deferred cycle's finalizer turns the pacing back on
	done()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("the collector was turned off again after a load: %d", p)
	}
	debug.SetGCPercent(100)
	done = holdGC(holdGCAbove + 1)
	debug.SetGCPercent(250)
	done()
	if p := debug.SetGCPercent(100); p != 250 {
		t.Fatalf("a target set during the load was undone: %d", p)
	}
}
