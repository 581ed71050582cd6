package session

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/pigo-agent/pigo/internal/gcstart"
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

// TestHoldGCEndsStartDeferral: a large load in a process whose collector gcstart has
// deferred (off until 32 MB) ends the deferral and raises the target for the load; without
// that the load ran with the collector off, then from the deferred cycle on at GOGC=100.
func TestHoldGCEndsStartDeferral(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	gcstart.Defer(1 << 40)
	done := holdGC(holdGCAbove + 1)
	if p := debug.SetGCPercent(holdGCPercent); p != holdGCPercent {
		t.Fatalf("during the load: GOGC %d, want %d", p, holdGCPercent)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("during the load: the deferral's memory limit %d is still set", l)
	}
	done()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("after the load: GOGC %d, want 100", p)
	}
}
