package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

func init() {
	register(&command{
		name:    "tool",
		summary: "run one tool of the resolved registry, headless, exactly as a session would",
		usage:   "tool run NAME [--args JSON | --args-file FILE] [--session FILE] [--model M]",
		sub: []*command{{
			name:    "run",
			summary: "run one tool call and print its result",
			usage:   "tool run NAME [--args JSON | --args-file FILE] [--session FILE] [--model M]",
			flags: append([]flag{
				{names: []string{"--args"}, value: true, help: "the call's arguments, a JSON object (default {})"},
				{names: []string{"--args-file"}, value: true, help: "read the arguments from FILE (- for stdin)"},
				{names: []string{"--session"}, value: true, help: "a pi session file: replay its read state, append the call (created when absent)"},
			}, selectionFlags...),
			run: runToolRun,
		}},
	})
}

// toolRunJSON is the JSON document of `pigo tool run` (cli.md).
type toolRunJSON struct {
	Version    int             `json:"version"`
	Tool       string          `json:"tool"`
	IsError    bool            `json:"is_error"`
	Content    []llm.Content   `json:"content"`
	Details    json.RawMessage `json:"details"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

func runToolRun(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) != 1 {
		fmt.Fprintln(c.Stderr, "pigo tool run: give exactly one tool name")
		return ExitUsage
	}
	name := a.pos[0]
	raw, err := c.toolArgs(a)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	ro := config.ResolveOptions{Model: a.str("--model"), Tools: a.csv("--tools"), ExcludeTools: a.csv("--exclude-tools"),
		NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools"), NoMCP: a.has("--no-mcp"), Headless: true}
	// --agent resolves for the sub-agent: its tools list, its model and its fixed sandbox.
	var sub *config.ResolvedAgent
	if n := a.str("--agent"); n != "" {
		if _, code := c.applyAgent(cfg, n, &ro); code != ExitOK {
			return code
		}
		if sub, err = cfg.Agent(n); err != nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: --agent: %v\n", err)
			return ExitFailed
		}
	}
	res, err := cfg.Resolve(ro)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitUsage
	}
	if row, _ := toolrun.Row(res.Tools, name); row == nil && strings.HasPrefix(name, "mcp__") && !a.has("--no-mcp") && len(cfg.MCP().Servers) > 0 {
		// A server's tool the schema cache does not list (yet): the servers connect once, as
		// `pigo mcp list` connects them, which caches their tools, and the registry is resolved
		// again.
		pol, _, _ := cfg.SandboxPolicy()
		if sub != nil {
			pol = sub.Sandbox
		}
		c.runConfig(a).CacheMCPTools(cfg, pol)
		if res, err = cfg.Resolve(ro); err != nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
			return ExitUsage
		}
	}
	c.notice(res.Diags)
	if row, ok := toolrun.Row(res.Tools, name); !ok {
		if row == nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: unknown tool %q\n", name)
		} else {
			fmt.Fprintf(c.Stderr, "pigo tool run: tool %q is %s: %s\n", name, row.State, row.Reason)
		}
		return ExitUsage
	} else if row.State == engine.CodemodeOnly {
		// A session never offers it to the model: only a codemode script can call it.
		fmt.Fprintf(c.Stderr, "pigo tool run: tool %q is codemode-only: a session calls it from a codemode script (run codemode with a script that calls it)\n", name)
		return ExitUsage
	}
	st := &app.Setup{}
	if sub != nil {
		// A sub-agent runs in its own fixed sandbox (D12), never the user's sandbox.json.
		st.Policy, st.FixedSandbox = sub.Sandbox, true
	} else {
		// A sandbox policy that cannot be read refuses the commands (fail closed), not the
		// tools that run none.
		st.Policy, _, st.PolicyErr = cfg.SandboxPolicy()
	}
	if err := appconfig.Fill(st, cfg, res, c.runConfig(a)); err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitInternal
	}
	if row, _ := toolrun.Row(res.Tools, name); appconfig.ReachesMCP(row) {
		// An MCP tool (or one that reaches MCP tools) runs once the servers connected; other
		// tools start no server.
		if !a.has("--no-mcp") {
			c.notice(appconfig.MCPWidened(cfg))
		}
		st.MCP = appconfig.MCP(cfg, res, st.Policy, c.runConfig(a))
	}
	spec := app.SessionSpec{InMemory: true}
	if p := a.str("--session"); p != "" {
		spec = app.SessionSpec{File: p}
	}
	// As a session does, a talk tool's run is an agent of the mailbox while the tool runs
	// (talk-list-agents answers with itself, talk-send has a sender).
	s, err := app.Open(app.Options{Config: c.appConfig(a, cfg), Setup: st, Session: spec, ToolsOnly: true,
		Talk: strings.HasPrefix(name, "talk-"), Frontend: &printFrontend{c: c}, Getenv: c.getenv})
	if err != nil {
		var ae *app.Error
		if errors.As(err, &ae) {
			fmt.Fprintf(c.Stderr, "pigo tool run: %s\n", ae.Msg)
			return ExitFailed
		}
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitInternal
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	result, err := s.RunTool(ctx, toolrun.Call{ID: toolrun.NewCallID(), Name: name, Arguments: raw})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %s: %v\n", s.Path(), err)
		return ExitInternal
	}
	if format == "json" {
		details := result.Details
		if len(details) == 0 {
			details = json.RawMessage(`{}`)
		}
		content := result.Content
		if content == nil {
			content = []llm.Content{}
		}
		if code := c.writeJSON(toolRunJSON{Version: 1, Tool: name, IsError: result.IsError, Content: content,
			Details: details, Structured: result.Structured}); code != ExitOK {
			return code
		}
	} else {
		text := toolrun.ContentText(result.Content)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		fmt.Fprint(c.Stdout, text)
	}
	if result.IsError {
		return ExitFailed
	}
	return ExitOK
}

// toolArgs reads --args or --args-file; the arguments must be a JSON value.
func (c *CLI) toolArgs(a *args) (json.RawMessage, error) {
	if a.has("--args") && a.has("--args-file") {
		return nil, errors.New("give either --args or --args-file, not both")
	}
	raw := []byte("{}")
	switch {
	case a.has("--args"):
		raw = []byte(a.str("--args"))
	case a.has("--args-file"):
		var err error
		if f := a.str("--args-file"); f == "-" {
			raw, err = io.ReadAll(c.Stdin)
		} else {
			raw, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := toolrun.ParseValue(raw); err != nil {
		return nil, fmt.Errorf("--args: not JSON: %v", err)
	}
	return json.RawMessage(raw), nil
}
