package session

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/gcstart"
	"github.com/pigo-agent/pigo/internal/llm"
)

// TestHoldGCRestores: overlapping loads raise the collector's target once and the last one
// restores what the process had; a small file and a process with a higher target or the
// collector off are left alone.
func TestHoldGCRestores(t *testing.T) {
	t.Setenv("GOGC", "100") // the user's own: put back as it was (no deferral)
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
	// The next cycle is paced from the loaded heap (TestHoldGCDefersNextCycle), then the
	// default pacing is back.
	if !gcstart.End() {
		t.Fatal("after the load: the next cycle is not paced from the loaded heap")
	}
}

// TestHoldGCDefersNextCycle: when a load ends in a process with the default pacing, the
// next cycle's goal is twice the heap (where GOGC=100 would have put it had the loaded heap
// been marked) and a quarter of the file, and that cycle puts the default pacing back. Restoring GOGC=100 at once
// started a cycle right after every large load (its goal was from the mark before the
// load), marking the whole session to free next to nothing.
func TestHoldGCDefersNextCycle(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var live [][]byte
	for range 16 { // what the process held before: the last mark, well above the 4 MB minimum goal
		live = append(live, make([]byte, 1<<20))
	}
	runtime.GC() // settle: a cycle the test's own setup started is not the load's
	marked := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(marked)
	before := numGC()
	const size = 64 << 20
	done := holdGC(size)
	// The load: twice the marked heap again, under the hold's goal of five times it (with
	// GOGC=100 put back, the goal would be twice the marked heap: below the heap now).
	for n := uint64(0); n < 2*marked[0].Value.Uint64(); n += 1 << 20 {
		live = append(live, make([]byte, 1<<20))
	}
	if numGC() != before {
		t.Skip("a cycle ran during the load: the goal after it says nothing")
	}
	done()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if goal, heap := s[0].Value.Uint64(), s[1].Value.Uint64(); goal+heap/25 < 2*heap+size/4 || goal > 2*heap+size/4+heap/25 {
		t.Fatalf("next goal %d MB, want about twice the heap's %d MB and 16 MB", goal>>20, heap>>20)
	}
	runtime.GC() // the paced cycle: its finalizer restores the default pacing
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetGCPercent(-1) != 100 {
		debug.SetGCPercent(-1)
		if time.Now().After(deadline) {
			t.Fatal("the default pacing was not restored after the next cycle")
		}
		time.Sleep(time.Millisecond)
	}
	debug.SetGCPercent(100)
	runtime.KeepAlive(live)
}

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// TestRepaceAfterFirstReply: the first reply appended after a large load moves the paced
// cycle to twice the heap then (what the first request made is counted live), and that
// cycle still puts the default pacing back; without it the goal stayed at twice the loaded
// heap and the next turn ran a cycle marking the whole session. A second reply, or one
// after a cycle has run, changes nothing.
func TestRepaceAfterFirstReply(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var live [][]byte
	for range 16 {
		live = append(live, make([]byte, 1<<20))
	}
	runtime.GC()
	marked := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(marked)
	before := numGC()
	done := holdGC(8 << 20)
	for n := uint64(0); n < marked[0].Value.Uint64(); n += 1 << 20 {
		live = append(live, make([]byte, 1<<20))
	}
	done()
	goal := func() (uint64, uint64) {
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64(), s[1].Value.Uint64()
	}
	g0, _ := goal()
	// The first request: what it keeps, past the load's goal but for a tenth.
	for h := uint64(0); ; {
		if _, h = goal(); h > g0*9/10 {
			break
		}
		live = append(live, make([]byte, 1<<20))
	}
	if numGC() != before {
		t.Skip("a cycle ran: the goal after it says nothing")
	}
	s := New("/w", t.TempDir(), Options{})
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{{Type: llm.TypeText, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if g, _ := goal(); g != g0 {
		t.Fatalf("a user message moved the goal: %d -> %d MB", g0>>20, g>>20)
	}
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeText, Text: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	g1, heap := goal()
	if g1+heap/25 < 2*heap || g1 > 2*heap+heap/25 {
		t.Fatalf("after the first reply: goal %d MB, want about twice the heap's %d MB (was %d MB)", g1>>20, heap>>20, g0>>20)
	}
	for range 4 {
		live = append(live, make([]byte, 1<<20))
	}
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant})
	if g, _ := goal(); g != g1 {
		t.Fatalf("a second reply moved the goal: %d -> %d MB", g1>>20, g>>20)
	}
	runtime.GC() // the paced cycle: its finalizer restores the default pacing
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetGCPercent(-1) != 100 {
		debug.SetGCPercent(-1)
		if time.Now().After(deadline) {
			t.Fatal("the default pacing was not restored after the next cycle")
		}
		time.Sleep(time.Millisecond)
	}
	debug.SetGCPercent(100)
	runtime.KeepAlive(live)
}
