package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

var sandboxCmd = command{
	name:    "sandbox",
	summary: "show the effective sandbox, preview or run a command in it, decide approval rules",
	usage:   "sandbox show|argv|run|approve [flags]",
	sub: []*command{
		{name: "show", summary: "the effective sandbox policy and where each value came from",
			usage: "sandbox show", run: runSandboxShow},
		{name: "argv", summary: "the bwrap command line and environment a command would run with",
			usage: "sandbox argv (-c 'LINE' | -- WORD...)", flags: []*flag{&sandboxLineFlag}, run: runSandboxArgv},
		{name: "run", summary: "run a command in the sandbox (exit code: the command's; 124 on timeout)",
			usage: "sandbox run [--timeout S] (-c 'LINE' | -- WORD...)",
			flags: []*flag{&sandboxLineFlag, {names: []string{"--timeout"}, value: true, help: "kill the command after S seconds (exit code 124)"}},
			run:   runSandboxRun},
		{name: "approve", summary: "decide a command line with the approval rules (allow, deny or ask)",
			usage: "sandbox approve 'COMMAND LINE'", run: runSandboxApprove},
	},
}

// &sandboxLineFlag is the sandbox commands' command line.
var sandboxLineFlag = flag{names: []string{"-c"}, value: true, help: "the command line the shell runs (bash -lc LINE)"}

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
func (c *CLI) hostEnviron() sandbox.Environ { return appconfig.Run{Getenv: c.getenv}.Environ() }

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
	out := cfg.SandboxShow(pol, eff, pl, planErr)
	if format == "json" {
		if code := c.writeJSON(out); code != ExitOK {
			return code
		}
	} else {
		out.WriteText(c.Stdout)
	}
	if planErr != nil {
		fmt.Fprintf(c.Stderr, "pigo sandbox show: %v\n", planErr)
		return ExitFailed
	}
	return ExitOK
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
	return sandbox.RunCommand(pl, line, sandbox.Options{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Timeout: timeout}, "pigo "+name+": ")
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
	ap.WriteText(c.Stdout)
	return ExitOK
}
