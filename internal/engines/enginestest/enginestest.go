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
	Serve(servers)
	unlink := Link()
	code := m.Run()
	unlink()
	os.Exit(code)
}

// MainOwnTemp is Main with a temp directory of the run's own: $TMPDIR points at a new
// directory before any test runs, and the directory is removed when they are done. It is for
// packages whose tests leave files in the temp directory by design (bash's and codemode's
// full-output files stay there for the model to read), so that no run leaves them in /tmp.
func MainOwnTemp(m *testing.M, servers map[string]engines.Server) {
	Serve(servers)
	tmp, err := os.MkdirTemp("", "pigo-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	unlink := Link()
	code := m.Run()
	unlink()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// Serve makes the test binary the helper when it was invoked as pigo-engines: it runs the
// engine and exits. Otherwise it returns.
func Serve(servers map[string]engines.Server) {
	if filepath.Base(os.Args[0]) == engines.Name {
		os.Exit(engines.Main(os.Args[1:], servers, os.Stdin, os.Stdout, os.Stderr))
	}
}

// Link links the test binary as pigo-engines in a temporary directory and points
// $PIGO_ENGINES at the link, before any test runs (no test sees the environment change); the
// returned function removes the directory.
func Link() func() { return LinkAs(engines.Name, engines.EnvPath) }

// LinkAs links the test binary as the helper name in a temporary directory and points the
// variable env at the link (pigo-cue's tests use it too); the returned function removes the
// directory.
func LinkAs(name, env string) func() {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		panic(err)
	}
	link := filepath.Join(dir, name)
	if err := os.Symlink(exe, link); err != nil {
		panic(err)
	}
	os.Setenv(env, link)
	return func() { os.RemoveAll(dir) }
}
