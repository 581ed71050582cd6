// Package cuetest gives test binaries the pigo-cue helper: tests of code that evaluates users'
// CUE extension files run the real helper process, which is the test binary itself.
package cuetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/cueschema"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
)

// Main is a TestMain: invoked as pigo-cue (through the link it makes) the test binary is the
// helper; otherwise it links itself as pigo-cue in a temporary directory, points $PIGO_CUE at
// the link and runs the tests.
func Main(m *testing.M) {
	Serve()
	unlink := Link()
	code := m.Run()
	unlink()
	os.Exit(code)
}

// Serve makes the test binary the helper when it was invoked as pigo-cue: it evaluates and
// exits. Otherwise it returns.
func Serve() {
	if filepath.Base(os.Args[0]) == cuehelper.Name {
		os.Exit(cuehelper.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cueschema.Evaluate))
	}
}

// Link links the test binary as pigo-cue in a temporary directory and points $PIGO_CUE at the
// link, before any test runs (no test sees the environment change); the returned function
// removes the directory.
func Link() func() { return enginestest.LinkAs(cuehelper.Name, cuehelper.EnvPath) }
