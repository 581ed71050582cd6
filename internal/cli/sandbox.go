package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

func init() {
	lineFlag := flag{names: []string{"-c"}, value: true, help: "the command line the shell runs (bash -lc LINE)"}
	register(&command{
		name:    "sandbox",
		summary: "show the effective sandbox, preview or run a command in it, decide approval rules",
		usage:   "sandbox show|argv|run|approve [flags]",
		sub: []*command{
			{name: "show", summary: "the effective sandbox policy and where each value came from",
				usage: "sandbox show", run: runSandboxShow},
			{name: "argv", summary: "the bwrap command line and environment a command would run with",
				usage: "sandbox argv (-c 'LINE' | -- WORD...)", flags: []flag{lineFlag}, run: runSandboxArgv},
			{name: "run", summary: "run a command in the sandbox (exit code: the command's; 124 on timeout)",
				usage: "sandbox run [--timeout S] (-c 'LINE' | -- WORD...)",
				flags: []flag{lineFlag, {names: []string{"--timeout"}, value: true, help: "kill the command after S seconds (exit code 124)"}},
				run:   runSandboxRun},
			{name: "approve", summary: "decide a command line with the approval rules (allow, deny or ask)",
				usage: "sandbox approve 'COMMAND LINE'", run: runSandboxApprove},
		},
	})
}

// sandboxLoad loads the configuration and the effective policy. A policy that cannot be read
// (a layer with errors) is a refusal: exit 1 with the reason.
func (c *CLI) sandboxLoad(a *args, name string) (*config.Config, sandbox.Policy, *config.Effective, int) {
	cfg, code := c.load(a)
	if cfg == nil {
		return nil, sandbox.Policy{}, nil, code
	}
	pol, eff, err := cfg.SandboxPolicy()
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		var pe *config.PolicyError
		if errors.As(err, &pe) {
			return nil, pol, eff, ExitFailed
		}
		return nil, pol, eff, ExitInternal
	}
	return cfg, pol, eff, ExitOK
}

// ignoredNotices says once, on stderr, which sandbox files were not applied.
func (c *CLI) ignoredNotices(eff *config.Effective) {
	for _, ig := range eff.Ignored {
		fmt.Fprintf(c.Stderr, "pigo: %s is not applied (%s): the sandbox runs without it\n", ig.File.Path, ig.Reason)
	}
}

// hostEnviron is sandbox.HostEnviron through the CLI's environment.
func (c *CLI) hostEnviron() sandbox.Environ {
	return sandbox.Environ{Home: c.getenv("HOME"), Path: c.getenv("PATH"), UID: os.Getuid(), GID: os.Getgid(), RuntimeDir: c.getenv("XDG_RUNTIME_DIR")}
}

// commandLine returns the line to run: -c LINE, or the words after -- shell-quoted and joined.
func commandLine(a *args) (string, error) {
	switch {
	case a.has("-c") && a.dashdash:
		return "", usagef("give either -c 'LINE' or -- WORD..., not both")
	case len(a.pos) > 0:
		return "", usagef("unexpected argument %q (quote the command line after -c, or put the words after --)", a.pos[0])
	case a.has("-c"):
		if strings.TrimSpace(a.str("-c")) == "" {
			return "", usagef("-c needs a non-empty command line")
		}
		return a.str("-c"), nil
	case a.dashdash && len(a.rest) > 0:
		return quoteWords(a.rest)
	}
	return "", usagef("missing command: give -c 'LINE' or -- WORD...")
}

// quoteWords shell-quotes each word (bash) and joins them with spaces.
func quoteWords(words []string) (string, error) {
	line, err := sandbox.QuoteWords(words)
	if err != nil {
		return "", usagef("%v", err)
	}
	return line, nil
}

func (c *CLI) usageFail(name, usage string, err error) int {
	fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
	fmt.Fprintf(c.Stderr, "usage: pigo %s\n", usage)
	return ExitUsage
}

// ---- show -------------------------------------------------------------------------------

type originJSON struct {
	Scope  string `json:"scope"` // default | global | project
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (o originJSON) String() string {
	if o.File == "" {
		return "default"
	}
	return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
}

func originOf(v *config.Value) originJSON {
	o := config.ValueOrigin(v)
	if o.File == "" {
		return originJSON{Scope: "default"}
	}
	return originJSON{Scope: string(v.File.Scope), File: o.File, Line: o.Line, Column: o.Column}
}

type modeJSON struct {
	Mode   string     `json:"mode"`
	Origin originJSON `json:"origin"`
}

type netJSON struct {
	Mode      string      `json:"mode"`
	Origin    originJSON  `json:"origin"`
	Allowlist []entryJSON `json:"allowlist"`
}

type entryJSON struct {
	Value  string     `json:"value"`
	Origin originJSON `json:"origin"`
}

type pathJSON struct {
	Path    string     `json:"path"`    // resolved (as written when no plan could be made)
	Written string     `json:"written"` // as in the file
	Extra   bool       `json:"extra"`   // from fs.extraWritablePaths
	Origin  originJSON `json:"origin"`
}

type denyJSON struct {
	Path    string     `json:"path"`
	Written string     `json:"written"`
	Dir     bool       `json:"dir"`               // a tmpfs hides a directory; else /dev/null over a file
	Skipped string     `json:"skipped,omitempty"` // why it is not mounted
	Origin  originJSON `json:"origin"`
}

// socketJSON says whether host Unix sockets are reachable from inside.
type socketJSON struct {
	Blocked bool     `json:"blocked"` // the seccomp filter refuses socket(AF_UNIX)
	Allowed []string `json:"allowed"` // network.allowUnixSockets, resolved
}

type ruleJSON struct {
	Action  string `json:"action"`
	Pattern string `json:"pattern"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

type ignoredJSON struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

type showJSON struct {
	Version   int        `json:"version"`
	Sandboxed bool       `json:"sandboxed"`
	Workspace string     `json:"workspace"`
	Bwrap     string     `json:"bwrap,omitempty"`
	FS        modeJSON   `json:"fs"`
	Network   netJSON    `json:"network"`
	Writable  []pathJSON `json:"writable"`
	Protected []string   `json:"protected"`
	// Placeholders are missing protected paths covered by an empty read-only tmpfs.
	Placeholders []string `json:"placeholders"`
	// ProtectedList is the one protected list (bash and the file tools), each entry with
	// how bash is kept from it.
	ProtectedList []sandbox.ProtectionRow `json:"protected_list"`
	UnixSockets   socketJSON              `json:"unix_sockets"`
	Deny          []denyJSON              `json:"deny"`
	ExtraArgs     []entryJSON             `json:"extra_args"`
	BwrapPath     *entryJSON              `json:"bwrap_path,omitempty"`
	Rules         []ruleJSON              `json:"rules"`
	Ignored       []ignoredJSON           `json:"ignored"`
	// Error is why no plan could be made (no bwrap, HOME unset); the paths are then as written.
	Error string `json:"error,omitempty"`
}

// effGet walks an effective value by keys (nil when absent).
func effGet(eff *config.Effective, keys ...string) *config.Value {
	if eff == nil {
		return nil
	}
	v := eff.Root
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// strElems returns the string elements of an effective array (what the policy read).
func strElems(v *config.Value) []*config.Value {
	if v == nil || v.Kind != jsonc.Array {
		return nil
	}
	var out []*config.Value
	for _, e := range v.Elems {
		if e.Kind == jsonc.String {
			out = append(out, e)
		}
	}
	return out
}

func buildShow(cfg *config.Config, pol sandbox.Policy, eff *config.Effective, pl *sandbox.Plan, planErr error) showJSON {
	out := showJSON{Version: 1, Sandboxed: pol.Sandboxed(), Workspace: cfg.ProjectDir,
		FS:            modeJSON{Mode: pol.FSMode, Origin: originOf(effGet(eff, "fs", "mode"))},
		Network:       netJSON{Mode: pol.NetMode, Origin: originOf(effGet(eff, "network", "mode")), Allowlist: []entryJSON{}},
		Writable:      []pathJSON{},
		Protected:     []string{},
		Placeholders:  []string{},
		ProtectedList: []sandbox.ProtectionRow{},
		UnixSockets:   socketJSON{Allowed: []string{}},
		Deny:          []denyJSON{},
		ExtraArgs:     []entryJSON{},
		Rules:         []ruleJSON{},
		Ignored:       []ignoredJSON{},
	}
	if planErr != nil {
		out.Error = planErr.Error()
	}
	if pl != nil {
		out.Workspace, out.Bwrap, out.Protected = pl.Workspace, pl.Bwrap, pl.Protected
		out.Placeholders = append(out.Placeholders, pl.Placeholders...)
		out.ProtectedList = append(out.ProtectedList, pl.ProtectionRows()...)
		if pl.Sandboxed && pl.NetMode != sandbox.NetAllowAll {
			out.UnixSockets.Blocked = len(pl.UnixSockets) == 0
			out.UnixSockets.Allowed = append(out.UnixSockets.Allowed, pl.UnixSockets...)
		}
	}
	// writable adds the paths of one list with their resolved form and origin.
	writable := func(paths []string, key string, resolvedList func() []string, extra bool) {
		elems := strElems(effGet(eff, "fs", key))
		for i, w := range paths {
			p := pathJSON{Path: w, Written: w, Extra: extra, Origin: originJSON{Scope: "default"}}
			if pl != nil && pl.Sandboxed {
				if r := resolvedList(); i < len(r) {
					p.Path = r[i]
				}
			}
			if i < len(elems) {
				p.Origin = originOf(elems[i])
			}
			out.Writable = append(out.Writable, p)
		}
	}
	switch pol.FSMode {
	case sandbox.FSAllowAll:
		out.Writable = append(out.Writable, pathJSON{Path: "/", Written: "/", Origin: out.FS.Origin})
	case sandbox.FSWorkspaceWrite:
		writable(pol.WritablePaths, "writablePaths", func() []string { return pl.Writable }, false)
	}
	writable(pol.ExtraWritablePaths, "extraWritablePaths", func() []string { return pl.Extra }, true)
	deny := strElems(effGet(eff, "fs", "denyPaths"))
	j, k := 0, 0
	for i, d := range pol.DenyPaths {
		dj := denyJSON{Path: d, Written: d, Dir: strings.HasSuffix(d, "/"), Origin: originJSON{Scope: "default"}}
		if i < len(deny) {
			dj.Origin = originOf(deny[i])
		}
		if pl != nil && pl.Sandboxed {
			if k < len(pl.Skipped) && pl.Skipped[k].Path == d {
				dj.Skipped = pl.Skipped[k].Reason
				k++
			} else if j < len(pl.Deny) {
				dj.Path, dj.Dir = pl.Deny[j].Path, pl.Deny[j].Dir
				j++
			}
		}
		out.Deny = append(out.Deny, dj)
	}
	allow := strElems(effGet(eff, "network", "allowlist"))
	for i, e := range pol.Allowlist {
		ej := entryJSON{Value: e, Origin: originJSON{Scope: "default"}}
		if i < len(allow) {
			ej.Origin = originOf(allow[i])
		}
		out.Network.Allowlist = append(out.Network.Allowlist, ej)
	}
	args := strElems(effGet(eff, "extraArgs"))
	for i, e := range pol.ExtraArgs {
		ej := entryJSON{Value: e, Origin: originJSON{Scope: "default"}}
		if i < len(args) {
			ej.Origin = originOf(args[i])
		}
		out.ExtraArgs = append(out.ExtraArgs, ej)
	}
	if pol.BwrapPath != "" {
		out.BwrapPath = &entryJSON{Value: pol.BwrapPath, Origin: originOf(effGet(eff, "bwrapPath"))}
	}
	for _, r := range pol.ApprovalRules {
		out.Rules = append(out.Rules, ruleJSON{Action: r.Action, Pattern: r.Pattern, File: r.Origin.File, Line: r.Origin.Line, Column: r.Origin.Column})
	}
	for _, ig := range eff.Ignored {
		out.Ignored = append(out.Ignored, ignoredJSON{File: ig.File.Path, Reason: ig.Reason})
	}
	return out
}

func runSandboxShow(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 || a.dashdash {
		return c.usageFail("sandbox show", "sandbox show", usagef("sandbox show takes no arguments"))
	}
	cfg, pol, eff, code := c.sandboxLoad(a, "sandbox show")
	if cfg == nil {
		return code
	}
	pl, planErr := sandbox.NewPlan(pol, cfg.ProjectDir, c.hostEnviron())
	out := buildShow(cfg, pol, eff, pl, planErr)
	if format == "json" {
		if code := c.writeJSON(out); code != ExitOK {
			return code
		}
	} else {
		writeShowText(c.Stdout, out)
	}
	if planErr != nil {
		fmt.Fprintf(c.Stderr, "pigo sandbox show: %v\n", planErr)
		return ExitFailed
	}
	return ExitOK
}

func writeShowText(w io.Writer, s showJSON) {
	state := "off: both axes are allow-all, commands run directly"
	if s.Sandboxed {
		state = "on"
		if s.Bwrap != "" {
			state += " (bwrap " + s.Bwrap + ")"
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sandbox:\t%s\n", state)
	fmt.Fprintf(tw, "workspace:\t%s\n", s.Workspace)
	fmt.Fprintf(tw, "fs:\t%s\t%s\n", s.FS.Mode, s.FS.Origin)
	fmt.Fprintf(tw, "network:\t%s\t%s\n", s.Network.Mode, s.Network.Origin)
	if s.BwrapPath != nil {
		fmt.Fprintf(tw, "bwrapPath:\t%s\t%s\n", s.BwrapPath.Value, s.BwrapPath.Origin)
	}
	tw.Flush()
	section := func(title string, n int, rows func(tw *tabwriter.Writer)) {
		fmt.Fprintln(w, title)
		if n == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		rows(tw)
		tw.Flush()
	}
	// Resolved paths vary in length (they hold the workspace), so these rows are not aligned.
	fmt.Fprintln(w, "writable:")
	if len(s.Writable) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range s.Writable {
		what := "fs.writablePaths"
		switch {
		case p.Extra:
			what = "fs.extraWritablePaths"
		case s.FS.Mode == sandbox.FSAllowAll:
			what = "fs.mode allow-all"
		}
		fmt.Fprintf(w, "  %s  (%q from %s, %s)\n", p.Path, p.Written, what, p.Origin)
	}
	// The one protected list, printed once: the file tools ask before writing any entry
	// (headless: refused); the note says how bash is kept from it.
	fmt.Fprintln(w, "protected (file tools ask before writing; bash cannot write them):")
	if len(s.ProtectedList) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range s.ProtectedList {
		note := map[string]string{
			"placeholder": "  (missing: an empty read-only placeholder, so it cannot be created)",
			"missing":     "  (missing)",
			"writable":    "  (file tools only: fs.mode allow-all leaves it writable to bash)",
			"off":         "  (file tools only: the sandbox is off)",
			"bash only":   "  (bash only: " + p.Why + ")",
		}[p.Bash]
		fmt.Fprintf(w, "  %s%s\n", p.Path, note)
	}
	if s.Sandboxed && s.Network.Mode != sandbox.NetAllowAll {
		switch {
		case s.UnixSockets.Blocked:
			fmt.Fprintln(w, "unix sockets: refused (seccomp filter); socket directories hidden")
		case len(s.UnixSockets.Allowed) > 0:
			fmt.Fprintf(w, "unix sockets: only %s (network.allowUnixSockets); socket directories hidden\n", strings.Join(s.UnixSockets.Allowed, ", "))
		}
	}
	fmt.Fprintln(w, "deny:")
	if len(s.Deny) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, d := range s.Deny {
		how := "a file: /dev/null over it"
		if d.Dir {
			how = "a directory: an empty tmpfs over it"
		}
		if d.Skipped != "" {
			how = "skipped: " + d.Skipped
		}
		fmt.Fprintf(w, "  %s  (%q, %s; %s)\n", d.Path, d.Written, how, d.Origin)
	}
	section("allowlist:", len(s.Network.Allowlist), func(tw *tabwriter.Writer) {
		for _, e := range s.Network.Allowlist {
			fmt.Fprintf(tw, "  %s\t%s\n", e.Value, e.Origin)
		}
	})
	if len(s.ExtraArgs) > 0 {
		section("extra bwrap args:", len(s.ExtraArgs), func(tw *tabwriter.Writer) {
			for _, e := range s.ExtraArgs {
				fmt.Fprintf(tw, "  %s\t%s\n", e.Value, e.Origin)
			}
		})
	}
	section("approval rules (the last matching rule decides):", len(s.Rules), func(tw *tabwriter.Writer) {
		for _, r := range s.Rules {
			fmt.Fprintf(tw, "  %s\t%q\t%s:%d:%d\n", r.Action, r.Pattern, r.File, r.Line, r.Column)
		}
	})
	for _, ig := range s.Ignored {
		fmt.Fprintf(w, "not applied: %s: %s\n", ig.File, ig.Reason)
	}
	if s.Error != "" {
		fmt.Fprintf(w, "no plan: %s\n", s.Error)
	}
}

// ---- argv -------------------------------------------------------------------------------

type argvJSON struct {
	Version int `json:"version"`
	sandbox.ArgvResult
}

func runSandboxArgv(c *CLI, a *args) int {
	const name, usage = "sandbox argv", "sandbox argv (-c 'LINE' | -- WORD...)"
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	line, err := commandLine(a)
	if err != nil {
		return c.usageFail(name, usage, err)
	}
	cfg, pol, eff, code := c.sandboxLoad(a, name)
	if cfg == nil {
		return code
	}
	c.ignoredNotices(eff)
	pl, err := sandbox.NewPlan(pol, cfg.ProjectDir, c.hostEnviron())
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return ExitFailed
	}
	res := pl.Preview(line)
	if format == "json" {
		return c.writeJSON(argvJSON{Version: 1, ArgvResult: res})
	}
	q, err := quoteWords(res.Argv)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return ExitInternal
	}
	fmt.Fprintln(c.Stdout, q)
	return ExitOK
}

// ---- run --------------------------------------------------------------------------------

func runSandboxRun(c *CLI, a *args) int {
	const name, usage = "sandbox run", "sandbox run [--timeout S] (-c 'LINE' | -- WORD...)"
	line, err := commandLine(a)
	if err != nil {
		return c.usageFail(name, usage, err)
	}
	var timeout time.Duration
	if a.has("--timeout") {
		s, err := strconv.ParseFloat(a.str("--timeout"), 64)
		if err != nil || s <= 0 || math.IsInf(s, 0) || s > 1e9 {
			return c.usageFail(name, usage, usagef("--timeout must be a positive number of seconds, got %q", a.str("--timeout")))
		}
		timeout = time.Duration(s * float64(time.Second))
	}
	cfg, pol, eff, code := c.sandboxLoad(a, name)
	if cfg == nil {
		return code
	}
	c.ignoredNotices(eff)
	pl, err := sandbox.NewPlan(pol, cfg.ProjectDir, c.hostEnviron())
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return ExitFailed
	}
	if n := pl.OffNotice(); n != "" {
		fmt.Fprintln(c.Stderr, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := sandbox.Run(ctx, pl, line, sandbox.Options{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Timeout: timeout})
	for _, r := range res.Restored {
		fmt.Fprintf(c.Stderr, "pigo: %s\n", r)
	}
	var te *sandbox.TimeoutError
	var ae *sandbox.AbortError
	var se *sandbox.SetupError
	switch {
	case errors.As(err, &se):
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return ExitFailed
	case errors.As(err, &te):
		fmt.Fprintf(c.Stderr, "pigo: the command was killed after its timeout of %s (%v)\n", timeout, err)
		return sandbox.ExitTimeout
	case errors.As(err, &ae):
		fmt.Fprintf(c.Stderr, "pigo: the command was interrupted and killed\n")
		return 130
	case err != nil:
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return ExitFailed
	}
	if res.ExitCode != 0 && pl.Sandboxed {
		fmt.Fprintf(c.Stderr, "pigo: the command ran in the sandbox: %s\n", limits(pl))
	}
	if res.ExitCode < 0 || res.ExitCode > 255 {
		return ExitFailed
	}
	return res.ExitCode
}

// limits describes a sandboxed plan in one line, for a command that failed.
func limits(pl *sandbox.Plan) string {
	var fs strings.Builder
	fs.WriteString("fs=" + pl.FSMode)
	writable := append(append([]string{}, pl.Writable...), pl.Extra...)
	var ro []string
	for _, p := range pl.Protected {
		if _, err := os.Lstat(p); err == nil {
			ro = append(ro, p)
		}
	}
	if pl.FSMode != sandbox.FSAllowAll {
		w := "none"
		if len(writable) > 0 {
			w = strings.Join(writable, ", ")
		}
		fs.WriteString(" (writable: " + w)
		if len(ro) > 0 {
			fs.WriteString("; read-only inside: " + strings.Join(ro, ", "))
		}
		fs.WriteString(")")
	}
	var hidden []string
	for _, d := range pl.Deny {
		hidden = append(hidden, d.Path)
	}
	if len(hidden) > 0 {
		fs.WriteString(", hidden: " + strings.Join(hidden, ", "))
	}
	net := "network=" + pl.NetMode
	if pl.NetMode == sandbox.NetLimited {
		net += " (allowlist: " + strings.Join(pl.Allowlist, ", ") + ")"
	}
	return fs.String() + ", " + net
}

// ---- approve ----------------------------------------------------------------------------

type approveJSON struct {
	Version int `json:"version"`
	sandbox.Approval
}

func runSandboxApprove(c *CLI, a *args) int {
	const name, usage = "sandbox approve", "sandbox approve 'COMMAND LINE'"
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	var line string
	switch {
	case len(a.pos) == 1 && !a.dashdash:
		line = a.pos[0]
	case len(a.pos) == 0 && a.dashdash && len(a.rest) > 0:
		var err error
		if line, err = quoteWords(a.rest); err != nil {
			return c.usageFail(name, usage, err)
		}
	case len(a.pos) > 1:
		return c.usageFail(name, usage, usagef("give the command line as one argument (quote it)"))
	default:
		return c.usageFail(name, usage, usagef("missing the command line"))
	}
	cfg, pol, eff, code := c.sandboxLoad(a, name)
	if cfg == nil {
		return code
	}
	c.ignoredNotices(eff)
	ap := sandbox.Evaluate(pol.ApprovalRules, line)
	if format == "json" {
		return c.writeJSON(approveJSON{Version: 1, Approval: ap})
	}
	fmt.Fprintf(c.Stdout, "decision: %s\n", ap.Decision)
	if ap.Error != "" {
		fmt.Fprintf(c.Stdout, "  %s\n", ap.Error)
	}
	width := 0
	for _, cd := range ap.Commands {
		width = max(width, len(cd.Text))
	}
	width = min(width, 48)
	for _, cd := range ap.Commands {
		why := "no rule matched"
		if cd.Rule != nil {
			why = fmt.Sprintf("%s %q at %s:%d:%d", cd.Rule.Action, cd.Rule.Pattern, cd.Rule.File, cd.Rule.Line, cd.Rule.Column)
		} else if cd.Opaque {
			why = "runs a script pigo cannot read"
		}
		text := strings.ReplaceAll(cd.Text, "\n", `\n`)
		fmt.Fprintf(c.Stdout, "  %-5s %-*s  %s\n", cd.Decision, width, text, why)
	}
	if ap.Redirect {
		fmt.Fprintln(c.Stdout, "  the line writes to a file (output redirection): it cannot be allowed without asking")
	}
	if len(ap.Suggestions) > 0 {
		fmt.Fprintln(c.Stdout, "suggested rules (allow forever):")
		for _, s := range ap.Suggestions {
			fmt.Fprintf(c.Stdout, "  %s\n", s)
		}
	}
	return ExitOK
}
