package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/pkgs"
)

// pi's package commands (D26, issue 27): install, remove (uninstall), list and update, with
// pi's sources, -l for the project's settings, and the settings entry written through the
// config edit path (comments kept, locked, validated).

// &packagesLocalFlag is the package commands' --local.
var packagesLocalFlag = flag{names: []string{"-l", "--local"}, help: "use the project's .pi/settings.json (and .pi/npm, .pi/git) instead of the agent dir's"}

var installCmd = command{
	name:    "install",
	summary: "install a pi package (npm:NAME[@VERSION], git:HOST/PATH[@REF], a URL or a path) and add it to settings.json",
	usage:   "install SOURCE [-l]",
	flags:   []*flag{&packagesLocalFlag},
	run:     runInstall,
}

// removeSummary is the summary of remove and of its alias uninstall.
const removeSummary = "uninstall a pi package and remove it from settings.json"

var removeCmd = command{
	name:    "remove",
	summary: removeSummary,
	usage:   "remove SOURCE [-l]",
	flags:   []*flag{&packagesLocalFlag},
	run:     runRemove,
}

var uninstallCmd = command{
	name:    "uninstall",
	summary: removeSummary,
	usage:   "uninstall SOURCE [-l]",
	flags:   []*flag{&packagesLocalFlag},
	run:     runRemove,
}

var listCmd = command{
	name:    "list",
	summary: "the pi packages declared in the user's and the project's settings, with where they are installed",
	usage:   "list [--format text|json]",
	run:     runList,
}

var updateCmd = command{
	name:    "update",
	summary: "update the installed pi packages (all, or the one SOURCE names)",
	usage:   "update [SOURCE] [--extensions]",
	flags: []*flag{{names: []string{"--extensions"}, help: "update packages (what pigo update always does; accepted for pi's command line)"},
		{names: []string{"--extension"}, value: true, help: "update the one package SOURCE names"}},
	run: runUpdate,
}

// onePackageArg returns the single SOURCE argument, or prints the usage error.
func (c *CLI) onePackageArg(a *args, name, usage string) (string, bool) {
	if len(a.pos) != 1 || strings.TrimSpace(a.pos[0]) == "" {
		if len(a.pos) == 0 {
			fmt.Fprintf(c.Stderr, "pigo %s: missing %s source\n", name, name)
		} else {
			fmt.Fprintf(c.Stderr, "pigo %s: unexpected argument %s\n", name, a.pos[1])
		}
		fmt.Fprintf(c.Stderr, "usage: pigo %s\n", usage)
		return "", false
	}
	return a.pos[0], true
}

// packageConfig loads the configuration for a package command, refusing -l in an untrusted
// project (pi: "Project is not trusted").
func (c *CLI) packageConfig(a *args) (*config.Config, int) {
	cfg, code := c.load(a)
	if cfg == nil {
		return nil, code
	}
	if a.has("-l") && !cfg.ProjectTrusted() {
		fmt.Fprintln(c.Stderr, "pigo: the project is not trusted; use --approve (or pigo trust) to change its package config")
		return nil, ExitFailed
	}
	return cfg, ExitOK
}

func runInstall(c *CLI, a *args) int {
	src, ok := c.onePackageArg(a, "install", "install SOURCE [-l]")
	if !ok {
		return ExitUsage
	}
	cfg, code := c.packageConfig(a)
	if cfg == nil {
		return code
	}
	fmt.Fprintf(c.Stderr, "Installing %s...\n", src)
	warn, err := cfg.InstallPackage(src, a.has("-l"), c.Stderr)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo install: %v\n", err)
		return ExitFailed
	}
	c.notice(warn)
	fmt.Fprintf(c.Stdout, "Installed %s\n", src)
	return ExitOK
}

func runRemove(c *CLI, a *args) int {
	src, ok := c.onePackageArg(a, "remove", "remove SOURCE [-l]")
	if !ok {
		return ExitUsage
	}
	cfg, code := c.packageConfig(a)
	if cfg == nil {
		return code
	}
	if err := cfg.RemovePackage(src, a.has("-l"), c.Stderr); err != nil {
		fmt.Fprintf(c.Stderr, "pigo remove: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(c.Stdout, "Removed %s\n", src)
	return ExitOK
}

func runList(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	list := cfg.ConfiguredPackages()
	if format == "json" {
		return c.writeJSON(struct {
			Version  int           `json:"version"`
			Packages []pkgs.Listed `json:"packages"`
		}{1, list})
	}
	pkgs.WriteList(c.Stdout, list)
	return ExitOK
}

func runUpdate(c *CLI, a *args) int {
	target := a.str("--extension")
	if len(a.pos) > 1 || len(a.pos) == 1 && target != "" {
		fmt.Fprintln(c.Stderr, "pigo update: give one SOURCE at most\nusage: pigo update [SOURCE] [--extensions]")
		return ExitUsage
	}
	if len(a.pos) == 1 {
		target = a.pos[0]
	}
	if target == "self" || target == "pi" {
		fmt.Fprintln(c.Stderr, "pigo update: pigo does not update itself; pigo update updates the installed pi packages")
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	res, err := cfg.UpdatePackages(target, c.Stderr)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo update: %v\n", err)
		return ExitFailed
	}
	res.Write(c.Stdout, c.Stderr, "pigo update: ")
	if len(res.Failed) > 0 {
		return ExitFailed
	}
	return ExitOK
}

// isOffline is --offline or PI_OFFLINE=1 (true, yes): no automatic network activity.
func (c *CLI) isOffline() bool {
	v := strings.ToLower(c.getenv("PI_OFFLINE"))
	return c.offline || v == "1" || v == "true" || v == "yes"
}

// installMissing installs the declared packages that are not installed, as pi does when a
// session starts (config.InstallMissing), and returns the configuration read again.
func (c *CLI) installMissing(cfg *config.Config, out io.Writer) *config.Config {
	fresh, warn := cfg.InstallMissing(c.isOffline(), out)
	c.notice(warn)
	return fresh
}

// packageNotes prints, at session start, one line per package whose code extensions do not run
// (with pigo's native equivalent) and per declared package that is not installed.
func (c *CLI) packageNotes(cfg *config.Config) {
	for _, l := range cfg.PackageLines() {
		fmt.Fprintln(c.Stderr, "pigo: "+l)
	}
}
