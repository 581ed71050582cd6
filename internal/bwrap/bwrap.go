// Package bwrap is the seed's bwrap extension commands: /bwrap shows the session's sandbox,
// /bwrap-fs-* and /bwrap-network-* switch one axis for the session, /bwrap-reload reads
// sandbox.json again, /bwrap-deny-request and /bwrap-allow-request turn the refusal of every
// escalation on and off. They act on the session's state (toolrun.Session: its sandbox policy
// and its deny switch); nothing is written to sandbox.json, and a new session starts from the
// files again. A sub-agent's fixed sandbox has none of them (they are not registered).
package bwrap

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Names are the commands, in the seed's order.
var Names = []string{
	"bwrap",
	"bwrap-fs-readonly", "bwrap-fs-workspace-write", "bwrap-fs-allow-all",
	"bwrap-network-block", "bwrap-network-limited", "bwrap-network-allow-all",
	"bwrap-reload", "bwrap-deny-request", "bwrap-allow-request",
}

// IsCommand reports whether name (without the slash) is one of the commands.
func IsCommand(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// The seed's texts (extensions-behaviour §3.8).
const (
	TextNoUI = "bwrap modes cannot be changed without an interactive UI"
)

// Commands runs the commands for one session.
type Commands struct {
	// Session is the session whose sandbox the commands change.
	Session *toolrun.Session
	// Reload reads sandbox.json again (global, then the trusted project's).
	Reload func() (sandbox.Policy, error)
	// Interactive is true when a person can change the modes (the seed's ctx.hasUI): in pigo
	// -p the mode switches answer TextNoUI, as the seed does without a UI.
	Interactive bool

	fs, net string // the session's overrides of one axis ("" = the files' value)
}

// Result is what a command says: Text, and whether it is a warning or an error.
type Result struct {
	Text  string
	Level string // "info", "warning" or "error"
}

// Run runs /name with args; ok is false when name is not a bwrap command.
func (c *Commands) Run(name, args string) (r Result, ok bool) {
	if !IsCommand(name) {
		return Result{}, false
	}
	s := c.Session
	switch name {
	case "bwrap":
		return Result{Text: Describe(s.SandboxPolicy(), s.Cwd, s.DenyingRequests()), Level: "info"}, true
	case "bwrap-deny-request":
		s.SetDenyRequests(true)
		return Result{Text: "Requests to run outside the sandbox or write outside the workspace are now denied without asking (/bwrap-allow-request asks again).", Level: "info"}, true
	case "bwrap-allow-request":
		s.SetDenyRequests(false)
		return Result{Text: "Requests to run outside the sandbox or write outside the workspace ask for approval again.", Level: "info"}, true
	case "bwrap-reload":
		c.fs, c.net = "", ""
		if err := c.reload(); err != nil {
			return Result{Text: err.Error(), Level: "error"}, true
		}
		return Result{Text: Initialized(s.SandboxPolicy()), Level: "info"}, true
	}
	if !c.Interactive {
		return Result{Text: TextNoUI, Level: "warning"}, true
	}
	axis, mode, _ := strings.Cut(strings.TrimPrefix(name, "bwrap-"), "-")
	word := "filesystem"
	if axis == "fs" {
		c.fs = mode
	} else {
		c.net, word = mode, "network"
	}
	if err := c.reload(); err != nil {
		return Result{Text: err.Error(), Level: "error"}, true
	}
	return Result{Text: fmt.Sprintf("Bwrap %s mode changed to %q.", word, mode), Level: "info"}, true
}

// reload reads the files and applies the session's overrides; a policy that cannot be read
// refuses every command (fail closed), as at session start.
func (c *Commands) reload() error {
	p := c.Session.SandboxPolicy()
	if c.Reload != nil {
		np, err := c.Reload()
		if err != nil {
			c.Session.SetSandboxPolicy(p, err)
			return err
		}
		p = np
	}
	if c.fs != "" {
		p.FSMode = c.fs
	}
	if c.net != "" {
		p.NetMode = c.net
	}
	c.Session.SetSandboxPolicy(p, nil)
	return nil
}

// Initialized is the seed's session-start text for a policy.
func Initialized(p sandbox.Policy) string {
	fs, net := orDefault(p.FSMode, sandbox.FSWorkspaceWrite), orDefault(p.NetMode, sandbox.NetBlock)
	if fs == sandbox.FSAllowAll && net == sandbox.NetAllowAll {
		return fmt.Sprintf("bwrap sandbox off (fs: %s, network: %s)", fs, net)
	}
	return fmt.Sprintf("bwrap initialized (fs: %s, network: %s)", fs, net)
}

// Describe is /bwrap's line: `bwrap fs:<fs> net:<net> write:[a, b] deny:[x]` ("-" for an
// empty list), with " (requests denied)" while /bwrap-deny-request is on.
func Describe(p sandbox.Policy, cwd string, denied bool) string {
	fs, net := orDefault(p.FSMode, sandbox.FSWorkspaceWrite), orDefault(p.NetMode, sandbox.NetBlock)
	var write []string
	switch fs {
	case sandbox.FSAllowAll:
		write = []string{"/"}
	case sandbox.FSWorkspaceWrite:
		wp := p.WritablePaths
		if wp == nil {
			wp = sandbox.DefaultPolicy().WritablePaths
		}
		write = append(write, wp...)
	}
	write = append(write, p.ExtraWritablePaths...)
	for i, w := range write {
		if w == "." {
			write[i] = cwd
		}
	}
	line := fmt.Sprintf("bwrap fs:%s net:%s write:%s deny:%s", fs, net, list(write), list(p.DenyPaths))
	if denied {
		line += " (requests denied)"
	}
	return line
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return "[" + strings.Join(xs, ", ") + "]"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
