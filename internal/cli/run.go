package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/bwrap"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/talk"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// runFlags are pi's flags for running a session (cli.md "Running a session"), plus the tool
// selection flags of `pigo tools`.
var runFlags = append([]flag{
	{names: []string{"-p", "--print"}, help: "one shot: run until the agent stops, print the last reply"},
	{names: []string{"--mode"}, value: true, help: "output: text (the last reply) or json (every event, one per line)"},
	{names: []string{"--provider"}, value: true, help: "the model's provider (with --model ID)"},
	{names: []string{"--thinking"}, value: true, help: "thinking level: off, minimal, low, medium, high, xhigh"},
	{names: []string{"--api-key"}, value: true, help: "API key for the provider (else models.json, else its environment variable)"},
	{names: []string{"--session"}, value: true, help: "use this session file or id"},
	{names: []string{"-c", "--continue"}, help: "continue the newest session of this directory"},
	{names: []string{"-r", "--resume"}, help: "pick a session to resume (needs a terminal)"},
	{names: []string{"--fork"}, value: true, help: "copy this session file or id into a new session and continue it"},
	{names: []string{"--no-session"}, help: "keep the session in memory only"},
	{names: []string{"--session-dir"}, value: true, help: "session directory (else $PI_CODING_AGENT_SESSION_DIR, else AGENTDIR/sessions)"},
	{names: []string{"--system-prompt"}, value: true, help: "replace the system prompt (TEXT or FILE)"},
	{names: []string{"--append-system-prompt"}, value: true, help: "append to the system prompt (TEXT or FILE, repeatable)"},
	{names: []string{"-nc", "--no-context-files"}, help: "no AGENTS.md / CLAUDE.md context files"},
}, selectionFlags...)

// thinkingLevels are the values of --thinking.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// runUsage is the usage line of a session run.
const runUsage = "[-p] [--mode text|json] [--model PROVIDER/ID[:THINKING]] [FLAGS] [PROMPT...]"

// isRun reports whether argv is a session run rather than a command: no command word, or a
// first word that is not a command — a prompt, as pi takes it (`pigo "fix the failing test"`,
// `pigo -p hello`). A word that is a near miss of a command name stays an unknown command
// (with its did-you-mean) unless -p or another run-only flag says it is a prompt.
func (c *CLI) isRun(argv []string, name string) bool {
	if name == "" {
		return true
	}
	if find(commandTable, name) != nil {
		return false
	}
	runOnly := map[string]bool{}
	for _, f := range runFlags {
		for _, n := range f.names {
			runOnly[n] = true
		}
	}
	for _, w := range argv {
		if w == "--" {
			break
		}
		n, _, _ := strings.Cut(w, "=")
		if runOnly[n] {
			return true
		}
	}
	return commandSuggestion(name) == ""
}

// commandSuggestion is the command name a mistyped word is close to ("" when none).
func commandSuggestion(word string) string {
	if strings.ContainsAny(word, " \t\n/") {
		return ""
	}
	names := make([]string, 0, len(commandTable))
	for _, cmd := range commandTable {
		names = append(names, cmd.name)
	}
	return suggestName(word, names)
}

// exitError carries an exit code with its message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitf(code int, format string, a ...any) *exitError {
	return &exitError{code, fmt.Sprintf(format, a...)}
}

// runSession is `pigo [FLAGS] [PROMPT...]`: pi's print and JSON modes.
func (c *CLI) runSession(argv []string) int {
	a, err := parse(argv, append(append([]flag{}, globalFlags...), runFlags...))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		fmt.Fprintf(c.Stderr, "usage: pigo %s\n", runUsage)
		return ExitUsage
	}
	if a.has("-h") {
		c.usage(c.Stdout)
		fmt.Fprintf(c.Stdout, "\nrunning a session: pigo %s\n\nsession flags:\n", runUsage)
		writeFlags(c.Stdout, runFlags)
		return ExitOK
	}
	mode := a.str("--mode")
	switch mode {
	case "":
		mode = "text"
	case "text", "json":
	default:
		fmt.Fprintf(c.Stderr, "pigo: --mode must be text or json, got %q\n", mode)
		return ExitUsage
	}
	print := a.has("-p") || mode == "json" || !c.Terminal
	if !print {
		return c.runChat(a)
	}
	var prompts, files []string
	for _, w := range append(append([]string{}, a.pos...), a.rest...) {
		if strings.HasPrefix(w, "@") {
			files = append(files, w[1:])
		} else {
			prompts = append(prompts, w)
		}
	}
	cwd := a.str("-C")
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	fileText, err := fileArgsText(cwd, files)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitUsage
	}
	// pi's buildInitialMessage: the piped text, the @file text, then the first prompt, joined
	// as they are.
	if head := c.pipedStdin() + fileText; head != "" {
		if len(prompts) == 0 {
			prompts = []string{head}
		} else {
			prompts[0] = head + prompts[0]
		}
	}
	if len(prompts) == 0 {
		if !a.has("-p") && mode == "text" && len(argv) == 0 {
			c.usage(c.Stderr) // a usage error: stdout stays clean for scripts
			return ExitUsage
		}
		fmt.Fprintln(c.Stderr, "pigo: no prompt: give it as an argument or on standard input")
		fmt.Fprintf(c.Stderr, "usage: pigo %s\n", runUsage)
		return ExitUsage
	}
	if a.has("-r") {
		fmt.Fprintln(c.Stderr, "pigo: --resume needs a terminal to pick a session; use --session PATH|ID or -c (continue the newest one)")
		return ExitUsage
	}
	r, err := c.prepareRun(a)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(c.Stderr, "pigo: "+ee.msg)
			}
			return ee.code
		}
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitInternal
	}
	defer r.close()
	return c.execute(r, mode, prompts)
}

// fileArgsText is pi's processFileArguments for text files: each @file as
// <file name="ABS">\nCONTENT\n</file>\n (a BOM stripped, empty files skipped). Image files are
// not attached yet: they are refused rather than sent as text.
func fileArgsText(cwd string, files []string) (string, error) {
	var b strings.Builder
	for _, f := range files {
		if f == "~" || strings.HasPrefix(f, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				f = filepath.Join(h, f[1:])
			}
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(cwd, f)
		}
		f = filepath.Clean(f)
		fi, err := os.Stat(f)
		if err != nil {
			return "", fmt.Errorf("File not found: %s", f)
		}
		if fi.Size() == 0 {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("Could not read file %s: %v", f, err)
		}
		if mt := http.DetectContentType(data); strings.HasPrefix(mt, "image/") {
			return "", fmt.Errorf("@%s is an image (%s): image attachments from the command line are not supported yet", f, mt)
		}
		b.WriteString("<file name=\"" + f + "\">\n" + strings.TrimPrefix(string(data), "\ufeff") + "\n</file>\n")
	}
	return b.String(), nil
}

// pipedStdin reads standard input when it is not a terminal (pi trims it; empty means none).
func (c *CLI) pipedStdin() string {
	if c.Stdin == nil {
		return ""
	}
	if f, ok := c.Stdin.(*os.File); ok {
		if IsTerminal(f) {
			return ""
		}
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return ""
		}
	}
	b, err := io.ReadAll(c.Stdin)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// run is one prepared session run.
type run struct {
	cfg      *config.Config
	res      *config.Resolution
	model    *llm.Model
	thinking string
	provider llm.Provider
	sess     *session.Session
	tools    []agent.Tool
	system   string
	settings agent.Settings
	policy   sandbox.Policy
	proxy    string
	// talk is the session's talk endpoint (nil when no talk tool is active).
	talk *talk.Core
	// toolSess is the tools' shared session state (talk binds its core to it; the chat sets
	// its Approver).
	toolSess *toolrun.Session
	// settingsJSON is the effective settings.json (session-name reads sessionName).
	settingsJSON []byte
	// expand turns a prompt into what is sent (templates, skills, extension commands).
	expand  func(ctx context.Context, text string) (string, bool, error)
	closers []func()
	// mcp is the run's MCP servers (nil without any); wrapTools, when set, wraps every tool
	// list the agent gets (the chat records writes for /rewind).
	mcp       *mcpRun
	wrapTools func([]agent.Tool) []agent.Tool
	// bwrap is the seed's /bwrap* commands on this session (nil for a sub-agent's fixed
	// sandbox); lsp is the session's language servers (nil when lsp.json has none).
	bwrap *bwrap.Commands
	lsp   *tools.LSP
}

func (r *run) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

// jsonWriter prints events as JSON lines, serialised.
type jsonWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (j *jsonWriter) line(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, err := json.Marshal(v)
	if err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	j.w.Write(b)
	j.w.WriteByte('\n')
	if err := j.w.Flush(); err != nil && j.err == nil {
		j.err = err
	}
}

// execute runs the prompts one after another and prints the result.
func (c *CLI) execute(r *run, mode string, prompts []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var out *jsonWriter
	emit := func(agent.Event) {}
	if mode == "json" {
		out = &jsonWriter{w: bufio.NewWriter(c.Stdout)}
		h := r.sess.Header()
		out.line(&h)
		emit = func(e agent.Event) { out.line(e) }
	}
	ag := agent.New(agent.Config{Provider: r.provider, Model: r.model, Options: llm.Options{ThinkingLevel: r.thinking, SessionID: r.sess.ID(), ProxyURL: r.proxy, Headers: requestHeaders(r.sess.ID()), ReportedCost: reportedCost(r.model)},
		SystemPrompt: r.system, Tools: r.tools, Settings: r.settings, Store: agent.SessionStore(r.sess), Emit: emit,
		Hooks: agent.Hooks{BeforeModelCall: r.mcpHook()}})
	r.attachMCP(ag)
	cmdOut := c.Stdout
	if mode == "json" {
		cmdOut = c.Stderr // keep stdout JSON lines only
	}
	if r.expand == nil {
		r.expand = c.expander(r, cmdOut)
	}
	code := ExitOK
	var last *llm.Message
	namingStarted, waitNaming := false, func() {}
	for i, p := range prompts {
		text := p
		if r.expand != nil {
			t, handled, err := r.expand(ctx, p)
			if err != nil {
				fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
				code = ExitFailed
				continue
			}
			if handled {
				continue
			}
			text = t
		}
		if !namingStarted {
			namingStarted = true
			waitNaming = c.startNaming(ctx, r, text)
		}
		r.talkTurn(ag)
		m, err := ag.Prompt(ctx, text)
		r.talkSettle()
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
			code = ExitFailed
		}
		last = m
		failed := last != nil && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted)
		if failed {
			code = ExitFailed
		}
		// pi settles after each prompt; every settled line carries the exit code so far, and
		// the last one is the run's.
		if out != nil && i < len(prompts)-1 && ctx.Err() == nil {
			out.line(settled{"agent_settled", code})
		}
		if ctx.Err() != nil {
			break
		}
	}
	failed := last != nil && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted)
	if mode == "text" {
		if failed {
			msg := last.ErrorMessage
			if msg == "" {
				msg = "Request " + last.StopReason
			}
			fmt.Fprintln(c.Stderr, msg)
		} else if m := lastWithText(ag.Messages()); m != nil {
			for _, b := range m.Content {
				if b.Type == llm.TypeText {
					fmt.Fprintln(c.Stdout, b.Text)
				}
			}
		}
	} else if failed && last.ErrorMessage != "" {
		fmt.Fprintln(c.Stderr, last.ErrorMessage)
	}
	waitNaming()
	// Nothing the run did may be lost silently: a session entry that could not be written is
	// an I/O failure (exit 3), whatever the model did.
	if err := ag.StoreErr(); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: the session file could not be written: %v\n", err)
		code = ExitInternal
	}
	if err := r.sess.Close(); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: session: %v\n", err)
		code = ExitInternal
	}
	if out != nil {
		if out.err != nil {
			fmt.Fprintf(c.Stderr, "pigo: writing events: %v\n", out.err)
			code = ExitInternal
		}
		out.line(settled{"agent_settled", code})
	}
	return code
}

// settled is pigo's agent_settled line: pi's, plus the exit code.
type settled struct {
	Type     string `json:"type"`
	ExitCode int    `json:"exit_code"`
}

// lastWithText is the last assistant message that has text: a run that ended on a tool turn
// still prints what the model last said.
func lastWithText(msgs []llm.Message) *llm.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		for _, b := range m.Content {
			if b.Type == llm.TypeText && b.Text != "" {
				return m
			}
		}
	}
	return nil
}

// textOrFile is pi's resolvePromptInput: an existing file's content, else the text itself.
func textOrFile(v, cwd string) string {
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	return v
}
