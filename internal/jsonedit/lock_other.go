//go:build !linux

package jsonedit

import "time"

// Lock is a no-op where flock is not available: edits still compare-and-swap.
func Lock(path string, timeout time.Duration) (unlock func(), err error) { return func() {}, nil }
