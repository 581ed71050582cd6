package session

import (
	"runtime/debug"
	"sync"
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
	n    int
	prev int
}

// holdGC raises the collector's target for a load of size bytes; call the result when done.
func holdGC(size int64) func() {
	if size <= holdGCAbove {
		return func() {}
	}
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.n == 0 {
		gcHold.prev = debug.SetGCPercent(holdGCPercent)
		if gcHold.prev < 0 || gcHold.prev > holdGCPercent {
			debug.SetGCPercent(gcHold.prev)
		}
	}
	gcHold.n++
	return func() {
		gcHold.Lock()
		defer gcHold.Unlock()
		if gcHold.n--; gcHold.n == 0 {
			debug.SetGCPercent(gcHold.prev)
		}
	}
}
