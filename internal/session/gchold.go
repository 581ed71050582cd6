package session

import (
	"runtime/debug"
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
		gcstart.End()
		cur := debug.SetGCPercent(holdGCPercent)
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
			if cur := debug.SetGCPercent(gcHold.prev); cur != holdGCPercent {
				debug.SetGCPercent(cur) // changed meanwhile: theirs stays
			}
		}
	}
}
