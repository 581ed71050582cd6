// Package enginestest gives test binaries the pigo-engines helper: tests of code that starts an
// engine run the real helper process, which is the test binary itself.
package enginestest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/engines"
)

// Main is a TestMain: invoked as pigo-engines (through the link it makes) the test binary is
// the helper with the given servers; otherwise it links itself as pigo-engines in a temporary
// directory, points $PIGO_ENGINES at the link and runs the tests.
func Main(m *testing.M, servers map[string]engines.Server) {
	if filepath.Base(os.Args[0]) == engines.Name {
		os.Exit(engines.Main(os.Args[1:], servers, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "pigo-engines-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, engines.Name)
	if err := os.Symlink(exe, link); err != nil {
		panic(err)
	}
	// Set before any test runs: no test sees the environment change.
	os.Setenv(engines.EnvPath, link)
	return m.Run()
}
