// Package cli is pigo's command line: argument parsing, the command table and the output of
// every command. The CLI is a value (CLI{Stdin, Stdout, Stderr, ...}.Main(args)) so that tests
// run it in-process; nothing here calls os.Exit.
package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
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

	// notes are the load notices of this command line (untrusted project, files not
	// applied): printed once on stderr and repeated in the JSON `warnings`.
	notes diag.List
	// trustAnswers are the trust questions answered during this command line, by folder.
	trustAnswers map[string][2]bool
	// OpenURL opens a URL in the browser (an OAuth sign-in); nil: $BROWSER, xdg-open or open.
	OpenURL func(string)
	// liveMCP is set by a session run: its registry lists the tools of connected MCP
	// servers, not the schema cache.
	liveMCP bool
	// sessionStart is set while a session run loads its configuration: missing packages are
	// installed then, and their code extensions named (pi's startup).
	sessionStart bool
	// resolving is set while resolveAgent loads: the configuration is resolved next
	// (config.Options.Resolving).
	resolving bool
	// offline is --offline (pi 1.6's, as PI_OFFLINE=1): no automatic network activity, so
	// missing packages are not installed at session start.
	offline bool
}

// command is one entry of the command table.
type command struct {
	name    string
	summary string
	usage   string
	flags   []*flag
	run     func(c *CLI, a *args) int
	// sub lists subcommands (config, sandbox, lsp): the first positional word picks one.
	sub []*command
	// maxPositionals, when set, ends flag parsing after that many positional words: the rest
	// are the words of a command line (pi's `mcp add NAME COMMAND ARGS...`).
	maxPositionals int
}

// commandTable is every command, in help's order. It and the commands it points to are static
// data: registered by an init function in each command's file, they were 154 allocations and
// 13 KB built at every pigo process's start (D25.49).
var commandTable = []*command{&agentsCmd, &authCmd, &checkCmd, &commandsCmd, &configCmd, &lspCmd, &mcpCmd,
	&installCmd, &removeCmd, &uninstallCmd, &listCmd, &updateCmd, &sandboxCmd, &schemaCmd, &sessionCmd,
	&toolCmd, &toolsCmd, &explainCmd, &trustCmd, &tuiCmd, &versionCmd}

func (c *CLI) getenv(k string) string {
	if c.Getenv != nil {
		return c.Getenv(k)
	}
	return os.Getenv(k)
}

// Main runs the command line (without the program name) and returns the exit code.
func (c *CLI) Main(argv []string) (code int) {
	out := &errWriter{w: c.Stdout}
	c.Stdout = out
	defer func() {
		c.Stdout = out.w
		if r := recover(); r != nil {
			fmt.Fprintf(c.Stderr, "pigo: internal error: %v\n", r)
			code = ExitInternal
		}
		if out.err != nil {
			// The results did not reach their reader (a full disk, a closed pipe): an I/O failure.
			fmt.Fprintf(c.Stderr, "pigo: cannot write the output: %v\n", out.err)
			code = ExitInternal
		}
	}()
	name, sub, rest := c.split(argv)
	if name == "" && slices.Contains(rest, "--version") {
		name, rest = "version", slices.DeleteFunc(rest, func(s string) bool { return s == "--version" })
	}
	if name == "" && hasHelp(argv) {
		c.usage(c.Stdout)
		return ExitOK
	}
	// No command: a session run (pi's print and JSON modes; the chat on a terminal).
	if name == "" || c.isRun(argv, name) {
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
	a, err := parseMax(rest, append(append([]*flag{}, globalFlags...), cmd.flags...), cmd.maxPositionals)
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
	c.offline = a.has("--offline")
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
	fmt.Fprintln(w, "\nusage: pigo [flags] [PROMPT...]   run the agent: the chat on a terminal, -p for one answer")
	fmt.Fprintln(w, "       pigo <command> [flags]\n\ncommands:")
	for _, cmd := range commandTable {
		fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w, "\nglobal flags:")
	writeFlags(w, globalFlags)
	fmt.Fprintln(w, "\nRun 'pigo <command> --help' for a command's flags, 'pigo -p --help' for the session flags;")
	fmt.Fprintln(w, "'pigo --version' prints the version.")
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

func writeFlags(w io.Writer, flags []*flag) {
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
	o := config.Options{AgentDir: a.str("--agent-dir"), ProjectDir: a.str("-C"), Extensions: a.list("-e"), Model: a.str("--model"),
		Getenv: c.getenv, Resolving: c.resolving}
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

// checkPlaces refuses, as usage errors, the places named on the command line that do not
// exist and a --model that names nothing (config.CheckPlaces); its notices are printed first.
func (c *CLI) checkPlaces(a *args) int {
	notes, err := config.CheckPlaces(config.Places{Dir: a.str("-C"), HasDir: a.has("-C"), AgentDir: a.str("--agent-dir"),
		HasAgentDir: a.has("--agent-dir"), Extensions: a.list("-e"), Model: a.str("--model"), HasModel: a.has("--model"), Getenv: c.getenv})
	c.notice(notes)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// load reads the configuration; on failure it prints the error and returns the exit code.
func (c *CLI) load(a *args) (*config.Config, int) {
	if code := c.checkPlaces(a); code != ExitOK {
		return nil, code
	}
	cfg, err := config.Load(c.loadOptions(a))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return nil, ExitInternal
	}
	if c.sessionStart {
		c.sessionStart = false // once: -p and the chat load once; /reload does not install
		cfg = c.installMissing(cfg, c.Stderr)
		defer c.packageNotes(cfg)
	}
	c.notice(append(append(diag.List{}, cfg.Diags...), cfg.NotApplied()...))
	return cfg, ExitOK
}

// notice prints load notices on stderr, each once per command line, and keeps them for the
// JSON `warnings` of the command's output.
func (c *CLI) notice(list diag.List) {
	for _, d := range list.Sort() {
		if slices.ContainsFunc(c.notes, func(x diag.Diagnostic) bool { return sameNote(x, d) }) {
			continue
		}
		c.notes = append(c.notes, d)
		fmt.Fprintln(c.Stderr, "pigo: "+appconfig.NoteLine(d))
	}
}

func sameNote(a, b diag.Diagnostic) bool {
	return a.File() == b.File() && a.Start == b.Start && a.Code == b.Code && a.Message == b.Message
}

// noteWarnings returns the load notices in the JSON `warnings` shape.
func (c *CLI) noteWarnings() []engine.Warning {
	out := []engine.Warning{}
	for _, d := range c.notes {
		w := engine.Warning{Code: d.Code, Message: d.Message, File: d.File(), Hint: d.Hint}
		if d.HasPos() {
			w.Line, w.Column = d.Pos()
		}
		out = append(out, w)
	}
	return out
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
// "version": 1 comes first. When the command had load notices and the document has no
// `warnings` of its own, they are added as its last member: every command's JSON says which
// files were not applied, in one place.
func (c *CLI) writeJSON(v any) int {
	var doc []byte
	warnings := false // doc has a top-level "warnings" member, known without a scan
	indented := false // doc is already laid out as json.Indent would
	if t, ok := v.(*toolsJSON); ok {
		if doc, ok = appendToolsJSON(make([]byte, 0, 32<<10), t, true); ok {
			warnings, indented = true, true // the result's warnings are always written
		} else {
			doc = nil
		}
	}
	if doc == nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
			return ExitInternal
		}
		doc = bytes.TrimSpace(buf.Bytes())
	}
	if len(c.notes) > 0 && len(doc) > 2 && doc[0] == '{' && !warnings && !hasMember(doc, "warnings") {
		ws, _ := json.Marshal(c.noteWarnings())
		doc = append(append(append(doc[:len(doc)-1:len(doc)-1], `,"warnings":`...), ws...), '}')
	}
	out, ok := doc, true
	if !indented {
		out, ok = appendIndented(make([]byte, 0, len(doc)+len(doc)/2), doc)
	}
	if !ok {
		var b bytes.Buffer
		if err := json.Indent(&b, doc, "", "  "); err != nil {
			fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
			return ExitInternal
		}
		out = b.Bytes()
	}
	out = append(out, '\n')
	if _, err := c.Stdout.Write(out); err != nil {
		return ExitInternal
	}
	return ExitOK
}

// errWriter remembers the first write error of the command's standard output.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// hasMember reports whether the JSON object doc (valid JSON: encoding/json's output) has a
// top-level member named key. It reads the top level's keys and skips the values undecoded
// (a whole decode into a map was 0.27 ms of `pigo tools`); false for anything else.
func hasMember(doc []byte, key string) bool {
	i := skipJSONSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return false
	}
	for i++; ; i++ {
		i = skipJSONSpace(doc, i)
		end := jsonStringEnd(doc, i)
		if end < 0 {
			return false
		}
		if jsonKeyIs(doc[i:end], key) {
			return true
		}
		if i = skipJSONSpace(doc, end); i >= len(doc) || doc[i] != ':' {
			return false
		}
		if i = skipJSONValue(doc, i+1); i >= len(doc) || doc[i] != ',' {
			return false // the closing '}' (or not an object)
		}
	}
}

// jsonKeyIs reports whether the quoted JSON string raw decodes to key.
func jsonKeyIs(raw []byte, key string) bool {
	if in := raw[1 : len(raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in) == key
	}
	var k string
	return json.Unmarshal(raw, &k) == nil && k == key
}

// skipJSONValue returns the index of the ',' or closing bracket after the value at i.
func skipJSONValue(doc []byte, i int) int {
	for depth := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			if i = jsonStringEnd(doc, i) - 1; i < 0 {
				return len(doc)
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return i
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// jsonStringEnd returns the index after the string starting at doc[i] ('"'), -1 if none.
// It looks for each '"' with bytes.IndexByte (a byte loop was most of hasMember's time on a
// 27 KB document): a quote ends the string unless an odd run of backslashes precedes it.
func jsonStringEnd(doc []byte, i int) int {
	if i >= len(doc) || doc[i] != '"' {
		return -1
	}
	for j := i + 1; ; {
		k := bytes.IndexByte(doc[j:], '"')
		if k < 0 {
			return -1
		}
		k += j
		n := 0
		for m := k - 1; m > i && doc[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return k + 1
		}
		j = k + 1
	}
}

func skipJSONSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}
