package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/printmode"
	"github.com/pigo-agent/pigo/internal/prompt"
)

// runFlags are pi's flags for running a session (cli.md "Running a session"), plus the tool
// selection flags of `pigo tools`.
var runFlags = []*flag{
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
	{names: []string{"--tui-mode"}, value: true, help: "the chat's terminal UI: fullscreen (default) or regular (output in the terminal's scrollback)"},
	{names: []string{"--use-theme"}, value: true, help: "the chat's theme for this run: NAME, or LIGHT/DARK"},
	&agentFlag, &toolsFlag, &excludeToolsFlag, &noBuiltinToolsFlag, &noToolsFlag, &noMCPFlag, // selectionFlags
}

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
	// The run flags are looked up in place: a map of their names, made on every start, was
	// 3 KB of fresh heap (D25.44).
	for _, w := range argv {
		if w == "--" {
			break
		}
		n, _, _ := strings.Cut(w, "=")
		for _, f := range runFlags {
			if slices.Contains(f.names, n) {
				return true
			}
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
	a, err := parse(argv, append(append([]*flag{}, globalFlags...), runFlags...))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		fmt.Fprintf(c.Stderr, "usage: pigo %s\n", runUsage)
		return ExitUsage
	}
	c.offline = a.has("--offline")
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
	// The front end first: it registers the run's signal handling beside the start's work.
	fe := printmode.NewFrontend(mode, c.Stdout, c.Stderr)
	cwd := a.str("-C")
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	prompts, err := prompt.Initial(cwd, append(append([]string{}, a.pos...), a.rest...), c.pipedStdin)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitUsage
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
	s, err := c.openApp(a, app.Options{Frontend: fe, SyncEvents: true, Stderr: c.Stderr})
	if err != nil {
		return c.exitCode(err)
	}
	if err := s.MissingCredential(); err != nil {
		// Said before the first request, not after a 401.
		fmt.Fprintln(c.Stderr, "pigo: "+err.Error())
		if err := s.Close(); err != nil {
			fmt.Fprintf(c.Stderr, "pigo: session: %v\n", err)
		}
		return ExitFailed
	}
	// The first request follows at once (unless the first prompt is a command): its
	// connection is opened meanwhile. Offline too: --offline and PI_OFFLINE stop automatic
	// network activity (package installs), not the session's own request, and this is that
	// request's connection, to its address, opened a moment sooner (D25.43).
	if !strings.HasPrefix(prompts[0], "/") {
		s.Preconnect()
	}
	return fe.Run(s, mode, prompts, c.Stdout)
}

// openApp checks the run's flags, loads the configuration and opens the session.
func (c *CLI) openApp(a *args, o app.Options) (*app.Session, error) {
	s, _, _, err := c.openAppWith(a, o, nil)
	return s, err
}

// openAppWith is openApp returning the configuration it read too; more, when set, adds a
// front end's commands that need it (the chat's).
func (c *CLI) openAppWith(a *args, o app.Options, more func(*appconfig.Config, *app.Setup) []app.Command) (*app.Session, *appconfig.Config, *app.Setup, error) {
	if t := a.str("--thinking"); t != "" && !slices.Contains(app.ThinkingLevels, t) {
		return nil, nil, nil, exitf(ExitUsage, "--thinking %q: expected one of %s", t, strings.Join(app.ThinkingLevels, ", "))
	}
	if a.has("--fork") {
		var bad []string
		for _, f := range [][2]string{{"--session", "--session"}, {"-c", "--continue"}, {"--no-session", "--no-session"}} {
			if a.has(f[0]) {
				bad = append(bad, f[1])
			}
		}
		if len(bad) > 0 {
			return nil, nil, nil, exitf(ExitUsage, "--fork cannot be combined with %s", strings.Join(bad, ", "))
		}
	}
	ref, suffix := splitModelFlag(a.str("--provider"), a.str("--model"))
	if ref != "" {
		a.vals["--model"] = []string{ref}
	}
	c.sessionStart = true // missing packages are installed as the session's configuration loads
	c.liveMCP = true      // the registry lists connected MCP servers' tools, never the cache
	st, ac, err := c.sessionSetup(a)
	if err != nil {
		return nil, nil, nil, err
	}
	if !a.has("--no-mcp") {
		c.notice(appconfig.MCPWidened(ac.Files()))
	}
	ask := o.Session.MissingCwd // the front end's question (the chat's), kept
	o.Config, o.Setup, o.Session, o.APIKey, o.Getenv = ac, st, c.sessionSpec(a, ac.Files()), a.str("--api-key"), c.getenv
	o.Session.MissingCwd = ask
	// The session's own model continues when no flag names one (pi); --agent's sub-agent
	// keeps its configuration.
	o.RestoreModel = ref == "" && !a.has("--agent")
	o.Thinking = a.str("--thinking")
	if o.Thinking == "" {
		o.Thinking = suffix
	}
	if more != nil {
		o.Commands = append(o.Commands, more(ac, st)...)
	}
	s, err := app.Open(o)
	return s, ac, st, err
}

// exitCode prints a failed run's error and returns its exit code.
func (c *CLI) exitCode(err error) int {
	var ee *exitError
	var ae *app.Error
	switch {
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(c.Stderr, "pigo: "+ee.msg)
		}
		return ee.code
	case errors.As(err, &ae):
		fmt.Fprintln(c.Stderr, "pigo: "+ae.Msg)
		if ae.Usage {
			return ExitUsage
		}
		return ExitFailed
	}
	fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
	return ExitInternal
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
