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
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/printmode"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

var toolCmd = command{
	name:    "tool",
	summary: "run one tool of the resolved registry, headless, exactly as a session would",
	usage:   "tool run NAME [--args JSON | --args-file FILE] [--session FILE] [--model M]",
	sub: []*command{{
		name:    "run",
		summary: "run one tool call and print its result",
		usage:   "tool run NAME [--args JSON | --args-file FILE] [--session FILE] [--model M]",
		flags: []*flag{
			{names: []string{"--args"}, value: true, help: "the call's arguments, a JSON object (default {})"},
			{names: []string{"--args-file"}, value: true, help: "read the arguments from FILE (- for stdin)"},
			{names: []string{"--session"}, value: true, help: "a pi session file: replay its read state, append the call (created when absent)"},
			&agentFlag, &toolsFlag, &excludeToolsFlag, &noBuiltinToolsFlag, &noToolsFlag, &noMCPFlag, // selectionFlags
		},
		run: runToolRun,
	}},
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
	if n := a.str("--agent"); n != "" {
		if _, code := c.applyAgent(cfg, n, &ro); code != ExitOK {
			return code
		}
	}
	res, sub, err := appconfig.ToolResolve(cfg, name, ro, a.str("--agent"), c.runConfig(a))
	if err != nil {
		return c.toolFailed(err)
	}
	c.notice(res.Diags)
	st, err := appconfig.ToolSetup(cfg, res, sub, name, c.runConfig(a))
	if err != nil {
		return c.toolFailed(err)
	}
	if row, _ := toolrun.Row(res.Tools, name); appconfig.ReachesMCP(row) && !a.has("--no-mcp") {
		c.notice(appconfig.MCPWidened(cfg))
	}
	spec := app.SessionSpec{InMemory: true}
	if p := a.str("--session"); p != "" {
		spec = app.SessionSpec{File: p}
	}
	// As a session does, a talk tool's run is an agent of the mailbox while the tool runs
	// (talk-list-agents answers with itself, talk-send has a sender).
	s, err := app.Open(app.Options{Config: c.appConfig(a, cfg), Setup: st, Session: spec, ToolsOnly: true,
		Talk: strings.HasPrefix(name, "talk-"), Frontend: &printmode.Frontend{Stderr: c.Stderr}, Getenv: c.getenv})
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

// toolFailed prints why a tool cannot run: a usage error (exit 2), a refusal (1) or an I/O
// failure (3).
func (c *CLI) toolFailed(err error) int {
	var ae *app.Error
	if !errors.As(err, &ae) {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitInternal
	}
	fmt.Fprintf(c.Stderr, "pigo tool run: %s\n", ae.Msg)
	if ae.Usage {
		return ExitUsage
	}
	return ExitFailed
}
