package session

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/pigo-agent/pigo/internal/gcstart"
)

// Loading a large session allocates what stays: the file's block and the decoded entries are
// all live when the load ends, and decoding makes little garbage. A collection during the
// load marks the growing live heap and frees next to nothing (a 16 MB file: three of a
// continuation's four collections, ~10% of its CPU), so while a file over holdGCAbove loads,
// the collector's target is raised to holdGCPercent (unless the process runs with a higher
// one or with the collector off); a memory limit (GOMEMLIMIT) still applies. Loads may
// overlap: the first raises it, the last restores it.
const (
	holdGCAbove   = 4 << 20
	holdGCPercent = 400
)

var gcHold struct {
	sync.Mutex
	n     int
	owned bool // the target in effect is the one the first load set
	prev  int
}

// holdGC raises the collector's target for a load of size bytes; call the result when done.
// gcstart's deferred first cycle is ended first (its limit is far below what the load
// allocates, and its cycle's finalizer would put GOGC=100 back in the middle of the load: at
// 64 MB the load then ran two collections marking up to 117 MB each); a target that is off
// otherwise or higher is left alone, and one that was changed while the loads ran is not put
// back.
func holdGC(size int64) func() {
	if size <= holdGCAbove {
		return func() {}
	}
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.n == 0 {
		cur := 100
		if !gcstart.EndWith(holdGCPercent) {
			cur = debug.SetGCPercent(holdGCPercent)
		}
		gcHold.owned = cur >= 0 && cur < holdGCPercent
		if gcHold.owned {
			gcHold.prev = cur
		} else {
			debug.SetGCPercent(cur)
		}
	}
	gcHold.n++
	return func() {
		gcHold.Lock()
		defer gcHold.Unlock()
		if gcHold.n--; gcHold.n == 0 && gcHold.owned {
			if gcHold.prev == 100 && gcstart.CanDefer() {
				// Straight from the load's target to the deferral: GOGC=100 in between
				// starts a cycle at the next allocation, which the deferral then waits for.
				if cur := debug.SetGCPercent(-1); cur != holdGCPercent {
					debug.SetGCPercent(cur) // changed meanwhile: theirs stays
				} else {
					deferNextCycle(size)
				}
			} else if cur := debug.SetGCPercent(gcHold.prev); cur != holdGCPercent {
				debug.SetGCPercent(cur) // changed meanwhile: theirs stays
			}
		}
	}
}

// deferNextCycle puts the next collection where GOGC=100 would have put it had the loaded
// heap just been marked: when the heap has doubled, and a quarter of the file (size bytes)
// more. Restoring GOGC=100 alone paces from the last cycle's mark, which ran before the load
// or early in it, so a cycle started at once, marking the whole session to free next to
// nothing (a 64 MB file: 151 MB marked, ~50 ms of CPU, one of the three cycles of a
// continuation), and the first turn's body then paid for another. The target is set for that
// one cycle (gcstart.Pace); the default is back after it. The collector is off when it is
// called; the caller checked gcstart.CanDefer.
//
// The quarter: what a continuation allocates for its first request (the context, the body)
// is about as much as the loaded session holds, and at exactly twice the heap it came within
// 3% of the goal (files of 12-32 MB of pi's fixture). When D25.23 made the loaded heap 3.6%
// smaller, those continuations crossed it: one more cycle, marking the whole session while
// the body was built (+14% instructions at 16 MB). The quarter keeps the cycle where it was
// before that; the heap it lets grow is what the smaller session no longer holds.
func deferNextCycle(size int64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	percent := 100
	if s[0].Value.Kind() == metrics.KindUint64 && s[1].Value.Kind() == metrics.KindUint64 {
		if marked, heap := s[0].Value.Uint64(), s[1].Value.Uint64(); marked > 0 && heap > marked {
			// goal = marked × (1 + GOGC/100) = 2 × heap + size/4
			percent = int((2*heap + uint64(size)/4 - marked) * 100 / marked)
		}
	}
	gcstart.Pace(percent)
}
