package appconfig

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// ToolResolve resolves the registry for one call of `pigo tool run NAME` with ro (headless;
// agent is --agent's sub-agent, whose tools and model ro already carries, "" for none). A
// server's tool the schema cache does not list yet connects the servers once, as `pigo mcp
// list` does, which caches their tools, and resolves again. A resolution error is a usage
// error (app.Error).
func ToolResolve(cfg *config.Config, name string, ro config.ResolveOptions, agent string, r Run) (*config.Resolution, *config.ResolvedAgent, error) {
	var sub *config.ResolvedAgent
	var err error
	if agent != "" {
		if sub, err = cfg.Agent(agent); err != nil {
			return nil, nil, &app.Error{Msg: "--agent: " + err.Error()}
		}
	}
	res, err := cfg.Resolve(ro)
	if err != nil {
		return nil, nil, &app.Error{Usage: true, Msg: err.Error()}
	}
	if row, _ := toolrun.Row(res.Tools, name); row == nil && strings.HasPrefix(name, "mcp__") && !ro.NoMCP && len(cfg.MCP().Servers) > 0 {
		pol, _, _ := cfg.SandboxPolicy()
		if sub != nil {
			pol = sub.Sandbox
		}
		r.CacheMCPTools(cfg, pol)
		if res, err = cfg.Resolve(ro); err != nil {
			return nil, nil, &app.Error{Usage: true, Msg: err.Error()}
		}
	}
	return res, sub, nil
}

// ToolSetup is the setup of the session one `pigo tool run NAME` call opens: NAME must be an
// active tool of res (else a usage error); a sub-agent's fixed sandbox, or sandbox.json's
// policy (one that cannot be read refuses the commands, fail closed, not the tools that run
// none); the MCP servers only when the tool reaches them.
func ToolSetup(cfg *config.Config, res *config.Resolution, sub *config.ResolvedAgent, name string, r Run) (*app.Setup, error) {
	if row, ok := toolrun.Row(res.Tools, name); !ok {
		if row == nil {
			return nil, &app.Error{Usage: true, Msg: fmt.Sprintf("unknown tool %q", name)}
		}
		return nil, &app.Error{Usage: true, Msg: fmt.Sprintf("tool %q is %s: %s", name, row.State, row.Reason)}
	} else if row.State == engine.CodemodeOnly {
		// A session never offers it to the model: only a codemode script can call it.
		return nil, &app.Error{Usage: true, Msg: fmt.Sprintf("tool %q is codemode-only: a session calls it from a codemode script (run codemode with a script that calls it)", name)}
	}
	st := &app.Setup{}
	if sub != nil {
		// A sub-agent runs in its own fixed sandbox (D12), never the user's sandbox.json.
		st.Policy, st.FixedSandbox = sub.Sandbox, true
	} else {
		st.Policy, _, st.PolicyErr = cfg.SandboxPolicy()
	}
	if err := Fill(st, cfg, res, r); err != nil {
		return nil, err
	}
	if row, _ := toolrun.Row(res.Tools, name); ReachesMCP(row) {
		// An MCP tool (or one that reaches MCP tools) runs once the servers connected; other
		// tools start no server.
		st.MCP = MCP(cfg, res, st.Policy, r)
	}
	return st, nil
}
