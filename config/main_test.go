package config_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/pigo-agent/pigo/internal/cueschema/cuetest"
	"github.com/pigo-agent/pigo/internal/engines/allengines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
)

// TestMain gives the tests pigo's two helpers — pigo-cue, which evaluates CUE extension files,
// and pigo-engines, whose presence makes the web_fetch, codemode and talk tools available, as
// on an installed pigo — and runs them under a soft memory limit set once before any test
// runs: a test that changed it while others ran would change it for them too (issue 21).
func TestMain(m *testing.M) {
	cuetest.Serve()
	enginestest.Serve(allengines.Servers)
	debug.SetMemoryLimit(512 << 20)
	unlinkCUE, unlinkEngines := cuetest.Link(), enginestest.Link()
	code := m.Run()
	unlinkEngines()
	unlinkCUE()
	os.Exit(code)
}
