package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
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
	res, err := cfg.Resolve(config.ResolveOptions{Model: a.str("--model"), Tools: a.csv("--tools"), ExcludeTools: a.csv("--exclude-tools"),
		NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools"), NoMCP: a.has("--no-mcp"), Headless: true})
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return ExitUsage
	}
	c.notice(res.Diags)
	if row, ok := callable(res.Tools, name); !ok {
		if row == nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: unknown tool %q\n", name)
		} else {
			fmt.Fprintf(c.Stderr, "pigo tool run: tool %q is %s: %s\n", name, row.State, row.Reason)
		}
		return ExitUsage
	}
	s, code := c.toolSession(cfg, res)
	if s == nil {
		return code
	}
	defer s.Close()
	if l := toolLSP(cfg, s.Cwd); l != nil {
		s.LSP = l
		defer l.Close()
	}
	var sess *session.Session
	if p := a.str("--session"); p != "" {
		if sess, err = session.Open(p, session.OpenOptions{Cwd: s.Cwd}); err != nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
			return ExitFailed
		}
		defer sess.Close()
		for _, w := range sess.Warnings {
			fmt.Fprintf(c.Stderr, "pigo: %s\n", w)
		}
		var msgs []llm.Message
		for _, e := range sess.Branch("") {
			if e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil {
				msgs = append(msgs, *e.Message.LLM)
			}
		}
		s.Replay(msgs)
		s.Env.SessionID = sess.ID()
		s.Env.SessionFile = sess.Path()
	}
	runner := toolrun.New(res.Tools, tools.All(), s)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	call := toolrun.Call{ID: toolCallID(), Name: name, Arguments: raw}
	result := runner.Run(ctx, call, nil)
	if sess != nil {
		if err := recordCall(sess, res.Model, call, result); err != nil {
			fmt.Fprintf(c.Stderr, "pigo tool run: %s: %v\n", sess.Path(), err)
			return ExitInternal
		}
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
		text := contentText(result.Content)
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

// contentText is the content as text: text blocks joined by newlines, images as a note.
func contentText(cs []llm.Content) string {
	var parts []string
	for _, c := range cs {
		switch c.Type {
		case llm.TypeText:
			parts = append(parts, c.Text)
		case llm.TypeImage:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes base64]", c.MimeType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

// callable finds the registry row that owns name: the callable one, else the first of that
// name (for the state and reason).
func callable(reg *engine.Result, name string) (*engine.ToolResult, bool) {
	var first *engine.ToolResult
	for i := range reg.Tools {
		t := &reg.Tools[i]
		if t.Name != name {
			continue
		}
		if toolrun.Callable(t.State) {
			return t, true
		}
		if first == nil || first.State == engine.Overridden || first.State == engine.Unavailable {
			first = t
		}
	}
	return first, false
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

// toolSession builds the headless tool session from the configuration.
func (c *CLI) toolSession(cfg *config.Config, res *config.Resolution) (*toolrun.Session, int) {
	cwd, err := filepath.Abs(cfg.ProjectDir)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tool run: %v\n", err)
		return nil, ExitInternal
	}
	s := &toolrun.Session{Cwd: cwd, AgentDir: cfg.AgentDir, Headless: true, FileIO: res.Tools.FileIO, Environ: c.hostEnviron()}
	// Like pi with --no-session, a run without --session still has a session id.
	if id, err := uuid.NewV7(); err == nil {
		s.Env.SessionID = id.String()
	}
	// A sandbox policy that cannot be read refuses the commands (fail closed), not the tools
	// that run none.
	pol, _, err := cfg.SandboxPolicy()
	s.Sandbox, s.SandboxErr = pol, err
	s.Rules = sandbox.CompileRules(pol.ApprovalRules)
	if settings, err := cfg.Effective(config.Settings); err == nil && settings.Root != nil {
		str := func(k string) string {
			if v := settings.Root.Get(k); v != nil && v.Kind == jsonc.String {
				return v.Node.Str
			}
			return ""
		}
		s.Shell = toolrun.Shell{Path: str("shellPath"), CommandPrefix: str("shellCommandPrefix")}
		if v := settings.Root.Get("exposeSessionEnvironment"); v != nil && v.Kind == jsonc.Bool && !v.Node.Bool {
			s.Env.Hide = true
		}
	}
	if m := res.Model; m != nil {
		s.Model = &llm.Model{Provider: m.Provider, ID: m.ID, Input: m.Input, Reasoning: m.Reasoning}
		s.Env.Provider, s.Env.Model = m.Provider, m.ID
	}
	if a := cfg.AFT(); a.Available() {
		tools.SetAFT(s, tools.AFTSetup{Bin: a.Binary.Path, Config: a.Config})
	}
	return s, ExitOK
}

// toolCallID is a fresh id in the shape pi's providers use for calls.
func toolCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// recordCall appends the call as a session records it: the assistant message with the tool
// call, then its toolResult.
func recordCall(s *session.Session, model *config.ModelInfo, call toolrun.Call, r toolrun.Result) error {
	now := time.Now().UnixMilli()
	args := call.Arguments
	if v, err := toolrun.ParseValue(args); err == nil {
		args, _ = v.MarshalJSON()
	}
	am := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeToolCall, ID: call.ID, Name: call.Name, Arguments: args}},
		API: "pigo", Provider: "pigo", Model: "tool-run", Usage: &llm.Usage{}, StopReason: llm.StopToolUse, Timestamp: now}
	if model != nil {
		am.Provider, am.Model = model.Provider, model.ID
	}
	if _, err := s.AppendMessage(am); err != nil {
		return err
	}
	isErr := r.IsError
	content := r.Content
	if content == nil {
		content = []llm.Content{}
	}
	tm := llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name, Content: content,
		Details: r.Details, IsError: &isErr, Timestamp: time.Now().UnixMilli()}
	_, err := s.AppendMessage(tm)
	return err
}
