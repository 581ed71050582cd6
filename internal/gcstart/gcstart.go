// Package gcstart defers the garbage collector's first cycle at process start.
//
// Go starts collecting when the heap reaches 4 MB. A `pigo -p` session allocates about
// 5 MB in all and `pigo tools` about 2 MB, so a short run paid for one cycle, with the
// start of its mark workers (a thread each), for garbage the exit frees anyway: ~6% of
// a 4-request session's CPU (docs/decisions/25-speed.md, D25.7). [Defer] switches the
// collector off until the runtime's memory reaches a limit; the first cycle that limit
// triggers turns the ordinary pacing (GOGC=100, no limit) back on, so a long session or
// a large one is collected exactly as before from then on.
package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// Limit is the runtime memory (heap, stacks and the runtime's own) below which no cycle
// runs. It bounds what a short run can leave uncollected.
const Limit = 32 << 20

// sentinel is garbage from the start: its finalizer runs after the first cycle.
type sentinel struct {
	_ *int
	_ [16]byte
}

// deferred is whether Defer's pacing is still in effect (its first cycle has not run and
// End was not called).
var deferred struct {
	sync.Mutex
	on  bool
	gen uint64 // Defer's calls so far
}

// CanDefer reports whether Defer changes anything: not when the user set GOGC or GOMEMLIMIT.
func CanDefer() bool { return os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" }

// Defer turns collection off until the runtime's memory reaches limit bytes; after the
// first cycle, the collector paces as usual. A user's own GOGC or GOMEMLIMIT is left alone.
func Defer(limit int64) {
	until(func() {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(limit)
	})
}

// until applies a pacing that lasts until the next cycle, whose finalizer puts the default
// pacing back. Only this pacing's sentinel ends it: one left from an earlier pacing (ended by
// End, then paced again: a large session's load) may be finalized late.
func until(apply func()) {
	if !CanDefer() {
		return
	}
	deferred.Lock()
	deferred.on = true
	deferred.gen++
	gen := deferred.gen
	deferred.Unlock()
	apply()
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { end(gen, 100) })
}

// End puts back the default pacing now (GOGC=100, no memory limit) if Defer's is still in
// effect, and reports whether it was. A caller about to allocate far more than the limit
// (a large session's load) ends the deferral itself so as to pace that work its own way:
// the first cycle's finalizer would otherwise reset the pacing in the middle of it.
func End() bool { return end(0, 100) }

// Pace sets GOGC=percent until the next cycle, then puts the default pacing back, as Defer
// does from its limit. A user's own GOGC or GOMEMLIMIT is left alone.
func Pace(percent int) {
	until(func() {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(percent)
	})
}

// EndWith is End putting back GOGC=percent instead of 100, straight from the deferral: the
// default target in between would start a cycle at the next allocation when the heap is
// already past it.
func EndWith(percent int) bool { return end(0, percent) }

// end ends the deferral of generation gen (0: whichever is in effect) with GOGC=percent.
func end(gen uint64, percent int) bool {
	deferred.Lock()
	defer deferred.Unlock()
	if !deferred.on || gen != 0 && gen != deferred.gen {
		return false
	}
	deferred.on = false
	debug.SetMemoryLimit(math.MaxInt64) // while the collector is still off
	debug.SetGCPercent(percent)
	return true
}
