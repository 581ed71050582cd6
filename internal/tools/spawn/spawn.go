// Package spawn implements spawn-agent over package internal/spawn.
package spawn

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/spawn"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("spawn-agent", "spawn-agent", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var a struct{ Agent, Task string }
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		s := inv.Session
		// The agent must be defined: the error names the available ones ("name: description;
		// ..." or "none").
		if err := agentsOf(s).Check(a.Agent); err != nil {
			return toolrun.ErrorResult(err.Error()), nil
		}
		exe, err := spawnExe()
		if err != nil {
			return toolrun.Result{}, err
		}
		res := spawn.Run(ctx, spawn.Request{Exe: exe, Cwd: s.Cwd, AgentDir: s.AgentDir, Agent: a.Agent, Task: a.Task,
			Progress: func(text string) { inv.Progress(toolrun.TextResult(text, nil)) }})
		if res.Failed {
			return toolrun.ErrorResult(res.Text), nil
		}
		var details any
		if res.Messages != nil {
			details = map[string]any{"messages": res.Messages}
		}
		return toolrun.TextResult(res.Text, details), nil
	}})
}

// SpawnExe is the pigo binary spawn-agent runs as the child session ("" = this process's:
// os.Args[0] looked up in PATH, so a binary started by name re-runs itself).
var SpawnExe string

func spawnExe() (string, error) {
	if SpawnExe != "" {
		return SpawnExe, nil
	}
	if strings.ContainsRune(os.Args[0], '/') {
		return os.Args[0], nil
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p, nil
	}
	return os.Executable()
}

type agentsKey struct{}

// agentsHolder guards a session's roster (/reload replaces it).
type agentsHolder struct {
	mu sync.Mutex
	r  spawn.Roster
}

// SetAgents gives a session the sub-agents spawn-agent may start (resolved once by the
// session, never read from the files per call).
func SetAgents(s *toolrun.Session, r spawn.Roster) {
	h := s.State(agentsKey{}, func() any { return &agentsHolder{} }).(*agentsHolder)
	h.mu.Lock()
	h.r = r
	h.mu.Unlock()
}

func agentsOf(s *toolrun.Session) spawn.Roster {
	h := s.State(agentsKey{}, func() any { return &agentsHolder{} }).(*agentsHolder)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.r
}
