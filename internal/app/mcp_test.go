package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// toolsReader is a front end that reads the session's tools when it is told something, as a
// chat refreshing its tool list does: the MCP servers' start-up report arrives on their own
// goroutine.
type toolsReader struct {
	events
	s    chan *Session
	done chan struct{}
}

func (r *toolsReader) Notice(n Notice) {
	r.events.Notice(n)
	s := <-r.s
	_ = s.mcp.current() // what the loop reads at its next call (nil before the runner is set)
	close(r.done)
}

// TestMCPRunnerSetUnderLock: the runner the MCP state hands to the loop is set under the
// state's lock, so a goroutine of the servers (their start-up report and what the front end
// does with it) reading it is ordered with the assignment. Before, bindTools assigned it
// without the lock while the servers' goroutines already ran: under -race a data race.
func TestMCPRunnerSetUnderLock(t *testing.T) {
	h := newHarness(t)
	fe := &toolsReader{s: make(chan *Session, 1), done: make(chan struct{})}
	s, _ := h.open(Options{ToolsOnly: true, Frontend: fe})
	fe.s <- s
	// The servers start as /reload binds the tools again: one that exits at once, whose
	// failure is reported on the servers' goroutine.
	startGoneServer(h, s)
	select {
	case <-fe.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the servers' start-up report never came")
	}
}

// TestMCPReportDueBeforeCloseIsGiven: the servers' start-up report, due once every server's
// first attempt settled, is given even when the session closes before the report's goroutine
// runs (pigo tool run closes as soon as its call returns: under load the broken server's
// report was lost).
func TestMCPReportDueBeforeCloseIsGiven(t *testing.T) {
	reportSettled = func() { time.Sleep(300 * time.Millisecond) } // the close comes first
	defer func() { reportSettled = nil }()
	h := newHarness(t)
	ev := &events{}
	s, _ := h.open(Options{ToolsOnly: true, Frontend: ev})
	startGoneServer(h, s)
	s.mu.Lock()
	mgr := s.mcp.mgr
	s.mu.Unlock()
	for deadline := time.Now().Add(20 * time.Second); !mgr.Settled(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's first attempt never settled")
		}
	}
	s.Close()
	for _, n := range ev.notices {
		if strings.HasPrefix(n.Text, "MCP servers need attention:") && n.Error {
			return
		}
	}
	t.Fatalf("the report due before the close was not given: %v", ev.notices)
}

// startGoneServer gives s one MCP server that exits at once and starts it as /reload binds
// the tools again: its failure is reported on the servers' goroutine.
func startGoneServer(h *harness, s *Session) {
	srv := &mcp.Server{Name: "gone", Transport: mcp.Stdio, Command: filepath.Join(h.root, "no-such-server"), Enabled: true, Timeout: 5}
	pol := sandbox.DefaultPolicy()
	pol.FSMode, pol.NetMode = sandbox.FSAllowAll, sandbox.NetAllowAll
	s.mu.Lock()
	s.setup.MCP = &MCPSetup{Servers: []*mcp.Server{srv}, Options: &mcpclient.Options{Cwd: h.proj, Home: h.root, Sandbox: pol, Environ: s.setup.Environ}}
	s.bindTools()
	s.mu.Unlock()
}
