package config_test

import (
	"runtime/debug"
	"testing"

	"github.com/pigo-agent/pigo/internal/cueschema/cuetest"
)

// TestMain gives the tests the pigo-cue helper, which evaluates CUE extension files, and runs
// them under a soft memory limit set once before any test runs: a test that changed it while
// others ran would change it for them too (issue 21).
func TestMain(m *testing.M) {
	debug.SetMemoryLimit(512 << 20)
	cuetest.Main(m)
}
