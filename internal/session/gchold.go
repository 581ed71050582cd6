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
	s = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	loadPace.Lock()
	loadPace.percent, loadPace.cycles = percent, s[0].Value.Uint64()
	loadPace.Unlock()
}

// loadPace is the pacing deferNextCycle set, until the first reply after the load
// (repaceAfterFirstReply) or a cycle.
var loadPace struct {
	sync.Mutex
	percent int    // GOGC as deferNextCycle set it; 0: nothing pending
	cycles  uint64 // the cycles completed then
}

// repaceAfterFirstReply moves the cycle deferNextCycle put after a load to twice the heap
// now, when the first reply after the load is appended (the session calls it) and no cycle
// has run since. By then the first request was built and sent: what the process keeps for
// the next ones (the body the agent's llm.BodyMemo extends, with the messages it was written
// from; the transcript) was allocated after the load, and deferNextCycle's goal, twice the
// loaded heap, counted it as garbage. The next turn then crossed it: a 16 MB session's
// second request ran a cycle that marked 60-66 MB of a 72-80 MB heap (~35 ms of CPU, the
// mutator's assists and write barriers besides). Twice the heap now is where GOGC=100
// would put the goal had the heap just been marked with what the first request made
// counted live (most of it is); that cycle, when it comes, puts the default pacing back.
// A target changed since (by the user or another pacing) is left alone.
func repaceAfterFirstReply() {
	loadPace.Lock()
	defer loadPace.Unlock()
	percent := loadPace.percent
	if percent == 0 {
		return
	}
	loadPace.percent = 0
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return
		}
	}
	cycles, marked, heap, goal := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
	if cycles != loadPace.cycles || marked == 0 || 2*heap <= goal {
		return
	}
	if cur := debug.SetGCPercent(-1); cur != percent {
		debug.SetGCPercent(cur) // changed meanwhile: theirs stays
		return
	}
	gcstart.Pace(int((2*heap - marked) * 100 / marked))
}
