package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/mcp"
)

// selectionFlags are the tool selection flags of tools, explain, tui, tool run and a session
// run. Each is a variable of its own so that the lists holding them are static data.
var selectionFlags = []*flag{&agentFlag, &toolsFlag, &excludeToolsFlag, &noBuiltinToolsFlag, &noToolsFlag, &noMCPFlag}

var (
	agentFlag          = flag{names: []string{"--agent"}, value: true, help: "resolve for this sub-agent (its tools, model and sandbox)"}
	toolsFlag          = flag{names: []string{"--tools", "-t"}, value: true, help: "strict allowlist of tools (comma list)"}
	excludeToolsFlag   = flag{names: []string{"--exclude-tools", "-xt"}, value: true, help: "tools to leave out (comma list)"}
	noBuiltinToolsFlag = flag{names: []string{"--no-builtin-tools", "-nbt"}, help: "built-in tools start inactive"}
	noToolsFlag        = flag{names: []string{"--no-tools", "-nt"}, help: "no tools at all"}
	noMCPFlag          = flag{names: []string{"--no-mcp"}, help: "no MCP servers and no MCP tools (mcp.json is not read)"}
)

var toolsCmd = command{
	name:    "tools",
	summary: "the tool registry a session starts with, and why",
	usage:   "tools [--model M] [--agent NAME] [--tools a,b] [--exclude-tools a,b] [--no-builtin-tools] [--no-tools] [--no-mcp]",
	flags:   selectionFlags,
	run:     runTools,
}

var explainCmd = command{
	name:    "explain",
	summary: "every resolution step for one tool, with the rule that decided it",
	usage:   "explain TOOL [--model M] [...same flags as tools]",
	flags:   selectionFlags,
	run:     runExplain,
}

// resolve loads the configuration and resolves it with the selection flags.
func (c *CLI) resolve(a *args) (*config.Config, *config.Resolution, int) {
	cfg, res, _, code := c.resolveAgent(a)
	return cfg, res, code
}

// resolveAgent is resolve that also returns the sub-agent of --agent, if any.
func (c *CLI) resolveAgent(a *args) (*config.Config, *config.Resolution, *agentInfo, int) {
	c.resolving = true // config.Options.Resolving: the load prepares the resolution on the other core
	cfg, code := c.load(a)
	c.resolving = false
	if cfg == nil {
		return nil, nil, nil, code
	}
	o := config.ResolveOptions{Model: a.str("--model"), Tools: a.csv("--tools"), ExcludeTools: a.csv("--exclude-tools"),
		NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools"), NoMCP: a.has("--no-mcp"), Headless: !c.Terminal}
	if c.liveMCP {
		// A session lists the tools of connected servers only (none yet), never the cache.
		o.MCPTools = func(*mcp.Server) *mcp.ToolList { return nil }
	}
	var agent *agentInfo
	if name := a.str("--agent"); name != "" {
		if agent, code = c.applyAgent(cfg, name, &o); code != ExitOK {
			return nil, nil, nil, code
		}
	}
	res, err := cfg.Resolve(o)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return nil, nil, nil, ExitFailed
	}
	c.notice(res.Diags)
	if m := a.str("--model"); m != "" {
		c.notice(cfg.ModelRefDiags("--model", m))
	}
	// --tools and --exclude-tools names that no declaration has select nothing: most likely a typo.
	c.notice(res.UnknownToolFlags(map[string][]string{"--tools": o.Tools, "--exclude-tools": o.ExcludeTools}))
	// The load notices lead the JSON warnings of tools, explain and commands.
	res.Tools.Warnings = append(c.noteWarnings(), res.Tools.Warnings...)
	res.Commands.Warnings = append(c.noteWarnings(), res.Commands.Warnings...)
	return cfg, res, agent, ExitOK
}

type toolsJSON struct {
	Version int `json:"version"`
	*engine.Result
	ModelSource string     `json:"model_source,omitempty"`
	Agent       *agentInfo `json:"agent,omitempty"`
}

func runTools(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo tools: unexpected argument %q\n", a.pos[0])
		return ExitUsage
	}
	_, res, agent, code := c.resolveAgent(a)
	if res == nil {
		return code
	}
	r := res.Tools
	if format == "json" {
		out := toolsJSON{Version: 1, Result: r, Agent: agent}
		if res.Model != nil {
			out.ModelSource = res.Model.Source
		}
		return c.writeJSON(&out)
	}
	if err := res.WriteTools(c.Stdout, agent, c.fitWidth); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}

type explainJSON struct {
	Version int `json:"version"`
	engine.ExplainResult
}

func runExplain(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) != 1 {
		fmt.Fprintln(c.Stderr, "usage: pigo explain TOOL [--model M] [...]")
		return ExitUsage
	}
	name := a.pos[0]
	_, res, code := c.resolve(a)
	if res == nil {
		return code
	}
	ex, err := res.Explain(name)
	if err != nil {
		return c.editFailure("explain", err)
	}
	if format == "json" {
		return c.writeJSON(explainJSON{Version: 1, ExplainResult: ex})
	}
	ex.WriteText(c.Stdout, res.Model.Line())
	return ExitOK
}
