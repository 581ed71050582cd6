// Package cli is pigo's command line: argument parsing, the command table and the output of
// every command. The CLI is a value (CLI{Stdin, Stdout, Stderr, ...}.Main(args)) so that tests
// run it in-process; nothing here calls os.Exit.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pigo-agent/pigo/config"
)

// Version is pigo's version, set at build time with -ldflags "-X ...cli.Version=...".
var Version = "0.1.0-dev"

// Exit codes (cli.md).
const (
	ExitOK       = 0
	ExitFailed   = 1
	ExitUsage    = 2
	ExitInternal = 3
)

// CLI runs one pigo command line.
type CLI struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Terminal is true when stdin and stdout are terminals.
	Terminal bool
}

// command is one entry of the command table.
type command struct {
	name    string
	summary string
	usage   string
	flags   []flag
	run     func(c *CLI, a *args) int
	// sub lists subcommands (config, sandbox, lsp): the first positional word picks one.
	sub []*command
}

var commandTable []*command

func register(cmd *command) { commandTable = append(commandTable, cmd) }

func (c *CLI) getenv(k string) string {
	if c.Getenv != nil {
		return c.Getenv(k)
	}
	return os.Getenv(k)
}

// Main runs the command line (without the program name) and returns the exit code.
func (c *CLI) Main(argv []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(c.Stderr, "pigo: internal error: %v\n", r)
			code = ExitInternal
		}
	}()
	name, sub, rest := c.split(argv)
	if name == "" && hasHelp(argv) {
		c.usage(c.Stdout)
		return ExitOK
	}
	// No command: a session run (pi's print and JSON modes; the chat on a terminal).
	if c.isRun(argv, name) {
		return c.runSession(argv)
	}
	cmd := find(commandTable, name)
	if cmd == nil {
		msg := fmt.Sprintf("pigo: unknown command %q", name)
		if sug := commandSuggestion(name); sug != "" {
			msg += fmt.Sprintf(" (did you mean %q? To send it to the model as a prompt, use -p)", sug)
		}
		fmt.Fprintln(c.Stderr, msg)
		c.usage(c.Stderr)
		return ExitUsage
	}
	if len(cmd.sub) > 0 {
		if sub == "" {
			if hasHelp(rest) {
				c.commandHelp(c.Stdout, cmd)
				return ExitOK
			}
			fmt.Fprintf(c.Stderr, "pigo %s: missing subcommand\n", cmd.name)
			c.commandHelp(c.Stderr, cmd)
			return ExitUsage
		}
		s := find(cmd.sub, sub)
		if s == nil {
			fmt.Fprintf(c.Stderr, "pigo %s: unknown subcommand %q\n", cmd.name, sub)
			c.commandHelp(c.Stderr, cmd)
			return ExitUsage
		}
		s.name = cmd.name + " " + s.name
		cmd = s
	}
	a, err := parse(rest, append(append([]flag{}, globalFlags...), cmd.flags...))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", cmd.name, err)
		fmt.Fprintf(c.Stderr, "usage: pigo %s\n", cmd.usage)
		return ExitUsage
	}
	if a.has("-h") {
		c.commandHelp(c.Stdout, cmd)
		return ExitOK
	}
	if a.has("--approve") && a.has("--no-approve") {
		fmt.Fprintf(c.Stderr, "pigo %s: --approve and --no-approve exclude each other\n", cmd.name)
		return ExitUsage
	}
	return cmd.run(c, a)
}

func hasHelp(argv []string) bool {
	for _, a := range argv {
		if a == "-h" || a == "--help" || a == "help" {
			return true
		}
		if a == "--" {
			break
		}
	}
	return false
}

// split finds the command (and subcommand) words among the global flags.
func (c *CLI) split(argv []string) (name, sub string, rest []string) {
	valueFlags := map[string]bool{}
	for _, f := range globalFlags {
		if f.value {
			for _, n := range f.names {
				valueFlags[n] = true
			}
		}
	}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		if w == "--" {
			rest = append(rest, argv[i:]...)
			break
		}
		if strings.HasPrefix(w, "-") {
			rest = append(rest, w)
			if valueFlags[w] && i+1 < len(argv) {
				i++
				rest = append(rest, argv[i])
			}
			continue
		}
		switch {
		case name == "" && w == "help":
			rest = append(rest, "--help")
		case name == "":
			name = w
		case sub == "" && hasSub(name):
			sub = w
		default:
			rest = append(rest, w)
		}
	}
	return name, sub, rest
}

func hasSub(name string) bool {
	cmd := find(commandTable, name)
	return cmd != nil && len(cmd.sub) > 0
}

func find(list []*command, name string) *command {
	for _, c := range list {
		if c.name == name {
			cp := *c
			return &cp
		}
	}
	return nil
}

func (c *CLI) usage(w io.Writer) {
	fmt.Fprintln(w, "pigo validates, explains and runs a pi-style agent configuration.")
	fmt.Fprintln(w, "\nusage: pigo <command> [flags]\n\ncommands:")
	for _, cmd := range commandTable {
		fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w, "\nglobal flags:")
	writeFlags(w, globalFlags)
	fmt.Fprintln(w, "\nRun 'pigo <command> --help' for a command's flags.")
}

func (c *CLI) commandHelp(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: pigo %s\n\n%s\n", cmd.usage, cmd.summary)
	for _, s := range cmd.sub {
		fmt.Fprintf(w, "  pigo %s %-10s %s\n", cmd.name, s.name, s.summary)
	}
	if len(cmd.flags) > 0 {
		fmt.Fprintln(w, "\nflags:")
		writeFlags(w, cmd.flags)
	}
	fmt.Fprintln(w, "\nglobal flags:")
	writeFlags(w, globalFlags)
}

func writeFlags(w io.Writer, flags []flag) {
	for _, f := range flags {
		n := strings.Join(f.names, ", ")
		if f.value {
			n += " VALUE"
		}
		fmt.Fprintf(w, "  %-24s %s\n", n, f.help)
	}
}

// loadOptions turns the global flags into config options.
func (c *CLI) loadOptions(a *args) config.Options {
	o := config.Options{AgentDir: a.str("--agent-dir"), ProjectDir: a.str("-C"), Extensions: a.list("-e"), Model: a.str("--model"), Cache: true,
		Getenv: c.getenv}
	if c.Terminal {
		o.AskTrust = c.askTrust
	}
	switch {
	case a.has("--approve"):
		t := true
		o.Approve = &t
	case a.has("--no-approve"):
		f := false
		o.Approve = &f
	}
	return o
}

// load reads the configuration; on failure it prints the error and returns the exit code.
func (c *CLI) load(a *args) (*config.Config, int) {
	cfg, err := config.Load(c.loadOptions(a))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return nil, ExitInternal
	}
	return cfg, ExitOK
}

// format returns the --format value after checking it against the allowed ones.
func (c *CLI) format(a *args, allowed ...string) (string, bool) {
	f := a.str("--format")
	if f == "" {
		return "text", true
	}
	for _, x := range allowed {
		if f == x {
			return f, true
		}
	}
	fmt.Fprintf(c.Stderr, "pigo: --format must be one of %s, got %q\n", strings.Join(allowed, ", "), f)
	return "", false
}

// color reports whether text output may use ANSI colours.
func (c *CLI) color(a *args) bool {
	return c.Terminal && !a.has("--no-color") && c.getenv("NO_COLOR") == ""
}

// writeJSON prints v as indented JSON. Every document type starts with `Version int` so that
// "version": 1 comes first.
func (c *CLI) writeJSON(v any) int {
	enc := json.NewEncoder(c.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}
