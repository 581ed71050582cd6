package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/table"
)

// AgentsReport is `pigo agents`: the sub-agents found and the files skipped.
type AgentsReport struct {
	Version int                `json:"version"`
	Agents  []AgentJSON        `json:"agents"`
	Skipped []SkippedAgentJSON `json:"skipped"`
	agents  []ResolvedAgent
	skipped []SkippedAgent
	// dirs are where sub-agents are looked for (named when there is none).
	dirs [2]string
}

// AgentJSON is one sub-agent in `pigo agents --format json`.
type AgentJSON struct {
	Name          string       `json:"name"`
	Description   string       `json:"description"`
	File          string       `json:"file"`
	Scope         string       `json:"scope"`
	Tools         []string     `json:"tools"`
	Model         string       `json:"model"`
	Provider      string       `json:"provider"`
	ThinkingLevel string       `json:"thinking_level"`
	Sandbox       AgentSandbox `json:"sandbox"`
}

// AgentSandbox is a sub-agent's fixed sandbox in snake_case, with where it came from.
type AgentSandbox struct {
	Source  string  `json:"source"` // "frontmatter" or "default"
	FS      AgentFS `json:"fs"`
	Network struct {
		Mode            string   `json:"mode"`
		Allowlist       []string `json:"allowlist"`
		MihomoPath      string   `json:"mihomo_path,omitempty"`
		Slirp4netnsPath string   `json:"slirp4netns_path,omitempty"`
	} `json:"network"`
	BwrapPath string   `json:"bwrap_path,omitempty"`
	ExtraArgs []string `json:"extra_args"`
}

// AgentFS is the fs part of an AgentSandbox.
type AgentFS struct {
	Mode               string   `json:"mode"`
	WritablePaths      []string `json:"writable_paths"`
	ExtraWritablePaths []string `json:"extra_writable_paths"`
	DenyPaths          []string `json:"deny_paths"`
}

// SkippedAgentJSON is an agent file that was skipped, and why.
type SkippedAgentJSON struct {
	File   string `json:"file"`
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sandboxOfAgent is p as AgentSandbox, its source "frontmatter" or "default".
func sandboxOfAgent(p sandbox.Policy, fromFrontmatter bool) AgentSandbox {
	var s AgentSandbox
	s.Source = "default"
	if fromFrontmatter {
		s.Source = "frontmatter"
	}
	s.FS = AgentFS{Mode: p.FSMode, WritablePaths: nonNil(p.WritablePaths), ExtraWritablePaths: nonNil(p.ExtraWritablePaths), DenyPaths: nonNil(p.DenyPaths)}
	s.Network.Mode, s.Network.Allowlist = p.NetMode, nonNil(p.Allowlist)
	s.Network.MihomoPath, s.Network.Slirp4netnsPath = p.MihomoPath, p.Slirp4netnsPath
	s.BwrapPath, s.ExtraArgs = p.BwrapPath, nonNil(p.ExtraArgs)
	return s
}

// AgentsReport lists the sub-agents of this configuration.
func (c *Config) AgentsReport() AgentsReport {
	agents, skipped := c.Agents()
	out := AgentsReport{Version: 1, Agents: []AgentJSON{}, Skipped: []SkippedAgentJSON{}, agents: agents, skipped: skipped,
		dirs: [2]string{DisplayDir(c.AgentDir + "/agents"), DisplayDir(c.ProjectOverlay() + "/agents")}}
	for _, ag := range agents {
		out.Agents = append(out.Agents, AgentJSON{Name: ag.Name, Description: ag.Description, File: ag.File, Scope: ag.Scope,
			Tools: nonNil(ag.Tools), Model: ag.ModelRef(), Provider: ag.Provider, ThinkingLevel: ag.ThinkingLevel,
			Sandbox: sandboxOfAgent(ag.Sandbox, ag.SandboxFromFrontmatter)})
	}
	for _, s := range skipped {
		out.Skipped = append(out.Skipped, SkippedAgentJSON{File: s.File, Scope: s.Scope, Reason: s.Reason})
	}
	return out
}

// WriteText prints the sub-agents as a table and the files skipped.
func (r AgentsReport) WriteText(w io.Writer) error {
	agents, skipped := r.agents, r.skipped
	if len(agents) == 0 {
		fmt.Fprintf(w, "no sub-agents (looked in %s and %s)\n", r.dirs[0], r.dirs[1])
	} else {
		t := &table.Table{}
		t.Header("AGENT", "SCOPE", "MODEL", "THINKING", "TOOLS", "SANDBOX", "FILE")
		for _, ag := range agents {
			model := ag.ModelRef()
			if model == "" {
				model = "(session model)"
			}
			think := ag.ThinkingLevel
			if think == "" {
				think = "-"
			}
			sb := "fs=" + ag.Sandbox.FSMode + " net=" + ag.Sandbox.NetMode
			if !ag.SandboxFromFrontmatter {
				sb += " (default)"
			}
			t.Append(ag.Name, ag.Scope, model, think, strings.Join(ag.Tools, ", "), sb, ag.File)
		}
		if err := t.Render(w); err != nil {
			return err
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.File, s.Reason)
	}
	return nil
}

// Info is the sub-agent part of `pigo tools --agent NAME --format json`.
func (a *ResolvedAgent) Info() *AgentInfo {
	return &AgentInfo{Name: a.Name, File: a.File, Tools: nonNil(a.Tools), Model: a.ModelRef(), ThinkingLevel: a.ThinkingLevel,
		Sandbox: sandboxOfAgent(a.Sandbox, a.SandboxFromFrontmatter)}
}

// AgentInfo is a sub-agent as `pigo tools --agent` reports it.
type AgentInfo struct {
	Name          string       `json:"name"`
	File          string       `json:"file"`
	Tools         []string     `json:"tools"`
	Model         string       `json:"model,omitempty"`
	ThinkingLevel string       `json:"thinking_level,omitempty"`
	Sandbox       AgentSandbox `json:"sandbox"`
}

// DisplayDir writes a folder with a trailing separator, in slashes.
func DisplayDir(d string) string {
	if !strings.HasSuffix(d, string(os.PathSeparator)) {
		d += string(os.PathSeparator)
	}
	return filepath.ToSlash(d)
}
