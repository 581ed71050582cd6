package cli

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/table"
)

func init() {
	register(&command{
		name:    "agents",
		summary: "list the sub-agents (agents/*.md) with their tools, model and sandbox",
		usage:   "agents",
		run:     runAgents,
	})
}

type agentsJSON struct {
	Version int                `json:"version"`
	Agents  []agentJSON        `json:"agents"`
	Skipped []skippedAgentJSON `json:"skipped"`
}

type agentJSON struct {
	Name          string      `json:"name"`
	Description   string      `json:"description"`
	File          string      `json:"file"`
	Scope         string      `json:"scope"`
	Tools         []string    `json:"tools"`
	Model         string      `json:"model"`
	Provider      string      `json:"provider"`
	ThinkingLevel string      `json:"thinking_level"`
	Sandbox       sandboxJSON `json:"sandbox"`
}

// sandboxJSON is a sub-agent's fixed sandbox in snake_case, with where it came from.
type sandboxJSON struct {
	Source  string `json:"source"` // "frontmatter" or "default"
	FS      fsJSON `json:"fs"`
	Network struct {
		Mode            string   `json:"mode"`
		Allowlist       []string `json:"allowlist"`
		MihomoPath      string   `json:"mihomo_path,omitempty"`
		Slirp4netnsPath string   `json:"slirp4netns_path,omitempty"`
	} `json:"network"`
	BwrapPath string   `json:"bwrap_path,omitempty"`
	ExtraArgs []string `json:"extra_args"`
}

type fsJSON struct {
	Mode               string   `json:"mode"`
	WritablePaths      []string `json:"writable_paths"`
	ExtraWritablePaths []string `json:"extra_writable_paths"`
	DenyPaths          []string `json:"deny_paths"`
}

type skippedAgentJSON struct {
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

func agentSandboxJSON(p sandbox.Policy, fromFrontmatter bool) sandboxJSON {
	var s sandboxJSON
	s.Source = "default"
	if fromFrontmatter {
		s.Source = "frontmatter"
	}
	s.FS = fsJSON{Mode: p.FSMode, WritablePaths: nonNil(p.WritablePaths), ExtraWritablePaths: nonNil(p.ExtraWritablePaths), DenyPaths: nonNil(p.DenyPaths)}
	s.Network.Mode, s.Network.Allowlist = p.NetMode, nonNil(p.Allowlist)
	s.Network.MihomoPath, s.Network.Slirp4netnsPath = p.MihomoPath, p.Slirp4netnsPath
	s.BwrapPath, s.ExtraArgs = p.BwrapPath, nonNil(p.ExtraArgs)
	return s
}

func runAgents(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo agents: unexpected argument %q\nusage: pigo agents\n", a.pos[0])
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	agents, skipped := cfg.Agents()
	if format == "json" {
		out := agentsJSON{Version: 1, Agents: []agentJSON{}, Skipped: []skippedAgentJSON{}}
		for _, ag := range agents {
			out.Agents = append(out.Agents, agentJSON{Name: ag.Name, Description: ag.Description, File: ag.File, Scope: ag.Scope,
				Tools: nonNil(ag.Tools), Model: ag.ModelRef(), Provider: ag.Provider, ThinkingLevel: ag.ThinkingLevel,
				Sandbox: agentSandboxJSON(ag.Sandbox, ag.SandboxFromFrontmatter)})
		}
		for _, s := range skipped {
			out.Skipped = append(out.Skipped, skippedAgentJSON{File: s.File, Scope: s.Scope, Reason: s.Reason})
		}
		return c.writeJSON(out)
	}
	if len(agents) == 0 {
		fmt.Fprintf(c.Stdout, "no sub-agents (looked in %s and %s)\n", displayDir(cfg.AgentDir+"/agents"), displayDir(cfg.ProjectOverlay()+"/agents"))
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
		if err := t.Render(c.Stdout); err != nil {
			fmt.Fprintf(c.Stderr, "pigo agents: %v\n", err)
			return ExitInternal
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(c.Stdout, "skipped %s: %s\n", s.File, s.Reason)
	}
	return ExitOK
}
