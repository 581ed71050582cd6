package gcstart

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var sink []byte

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// churn allocates n bytes of short-lived garbage in 64 KiB pieces.
func churn(n int) {
	for i := 0; i < n/(64<<10); i++ {
		sink = make([]byte, 64<<10)
	}
	sink = nil
}

// TestDeferThenRestore: below the limit no cycle runs (with the default pacing, 24 MB of
// garbage takes several); past it one does, and the default pacing is back.
func TestDeferThenRestore(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// The limit: what the runtime holds now plus 32 MB.
	Defer(int64(m.Sys-m.HeapReleased) + 32<<20)
	before := numGC()
	churn(24 << 20)
	if n := numGC() - before; n != 0 {
		t.Fatalf("%d collections below the limit, want none", n)
	}
	churn(256 << 20)
	if numGC() == before {
		t.Fatal("no collection past the limit")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		churn(8 << 20)
		if p := debug.SetGCPercent(100); p == 100 {
			break
		} else {
			debug.SetGCPercent(p)
		}
		if time.Now().After(deadline) {
			t.Fatal("the default pacing was not restored after the first collection")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit %d after the first collection, want none", l)
	}
}

// TestUserSettingsWin: GOGC or GOMEMLIMIT in the environment leaves the runtime alone.
func TestUserSettingsWin(t *testing.T) {
	for _, kv := range [][2]string{{"GOGC", "200"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(kv[0], kv[1])
		prev := debug.SetGCPercent(123)
		Defer(Limit)
		if p := debug.SetGCPercent(prev); p != 123 {
			t.Errorf("%s=%s: GC percent changed to %d", kv[0], kv[1], p)
		}
	}
}

// TestEnd: End puts the default pacing back at once while Defer's is in effect, only once,
// and the deferred cycle's finalizer does not reset a target set after it.
func TestEnd(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	Defer(1 << 40)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GOGC %d after Defer, want off", p)
	}
	if !End() {
		t.Fatal("End: Defer's pacing was not in effect")
	}
	if p := debug.SetGCPercent(400); p != 100 {
		t.Fatalf("GOGC %d after End, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit %d after End, want none", l)
	}
	if End() {
		t.Fatal("a second End found the deferral in effect")
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if p := debug.SetGCPercent(100); p != 400 {
		t.Fatalf("the deferred cycle's finalizer reset GOGC to %d after End", p)
	}
}
