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
)

// Limit is the runtime memory (heap, stacks and the runtime's own) below which no cycle
// runs. It bounds what a short run can leave uncollected.
const Limit = 32 << 20

// sentinel is garbage from the start: its finalizer runs after the first cycle.
type sentinel struct {
	_ *int
	_ [16]byte
}

// Defer turns collection off until the runtime's memory reaches limit bytes; after the
// first cycle, the collector paces as usual. A user's own GOGC or GOMEMLIMIT is left alone.
func Defer(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	runtime.SetFinalizer(&sentinel{}, restore)
}

// restore puts back the default pacing: GOGC=100 and no memory limit.
func restore(*sentinel) {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
