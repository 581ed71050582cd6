package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pigo-agent/pigo/internal/pitest"
)

// mcpServerScripts are the npm MCP servers scripts/install-pi.sh installs, by the variable a
// script finds them in.
var mcpServerScripts = []struct{ env, name string }{
	{"MCP_EVERYTHING", "mcp-server-everything"}, {"MCP_FILESYSTEM", "mcp-server-filesystem"}, {"MCP_MEMORY", "mcp-server-memory"}}

// mcpServersInstalled is the [mcpservers] condition: node 24 and the MCP servers from npm.
func mcpServersInstalled() bool {
	dir := filepath.Join(pitest.Dir(), "tools", "node_modules", ".bin")
	for _, s := range mcpServerScripts {
		if _, err := os.Stat(filepath.Join(dir, s.name)); err != nil {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(pitest.NodeDir(), "node"))
	return err == nil
}

// cmdMCPServers is `mcpservers`: set $MCP_EVERYTHING, $MCP_FILESYSTEM and $MCP_MEMORY to the
// servers' scripts and put node 24 first on PATH (they are node scripts). Guard it with
// `[!mcpservers] skip`.
func cmdMCPServers(ts *testscript.TestScript, neg bool, args []string) {
	if !mcpServersInstalled() {
		ts.Fatalf("the MCP servers are not installed: run scripts/install-pi.sh (needs the npm registry)")
	}
	dir := filepath.Join(pitest.Dir(), "tools", "node_modules", ".bin")
	for _, s := range mcpServerScripts {
		ts.Setenv(s.env, filepath.Join(dir, s.name))
	}
	ts.Setenv("PATH", pitest.NodeDir()+string(os.PathListSeparator)+ts.Getenv("PATH"))
}

// cmdFreePort is `freeport NAME`: set $NAME to a free TCP port on 127.0.0.1.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: freeport NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdWaitPort is `waitport PORT`: wait (at most a minute) until 127.0.0.1:PORT accepts
// connections.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens on 127.0.0.1:%s: %v", args[0], err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
