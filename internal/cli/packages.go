package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pkgs"
)

// pi's package commands (D26, issue 27): install, remove (uninstall), list and update, with
// pi's sources, -l for the project's settings, and the settings entry written through the
// config edit path (comments kept, locked, validated).

func init() {
	local := flag{names: []string{"-l", "--local"}, help: "use the project's .pi/settings.json (and .pi/npm, .pi/git) instead of the agent dir's"}
	register(&command{
		name:    "install",
		summary: "install a pi package (npm:NAME[@VERSION], git:HOST/PATH[@REF], a URL or a path) and add it to settings.json",
		usage:   "install SOURCE [-l]",
		flags:   []flag{local},
		run:     runInstall,
	})
	for _, name := range []string{"remove", "uninstall"} {
		register(&command{
			name:    name,
			summary: "uninstall a pi package and remove it from settings.json",
			usage:   name + " SOURCE [-l]",
			flags:   []flag{local},
			run:     runRemove,
		})
	}
	register(&command{
		name:    "list",
		summary: "the pi packages declared in the user's and the project's settings, with where they are installed",
		usage:   "list [--format text|json]",
		run:     runList,
	})
	register(&command{
		name:    "update",
		summary: "update the installed pi packages (all, or the one SOURCE names)",
		usage:   "update [SOURCE] [--extensions]",
		flags: []flag{{names: []string{"--extensions"}, help: "update packages (what pigo update always does; accepted for pi's command line)"},
			{names: []string{"--extension"}, value: true, help: "update the one package SOURCE names"}},
		run: runUpdate,
	})
}

// pkgScope maps -l onto the package scope and the config scope it edits.
func pkgScope(a *args) (pkgs.Scope, config.Scope) {
	if a.has("-l") {
		return pkgs.Project, config.Project
	}
	return pkgs.User, config.Global
}

// installer returns the Installer of a configuration: pi's folders, the settings' npmCommand,
// the commands' output on w.
func installer(cfg *config.Config, w io.Writer) *pkgs.Installer {
	in := &pkgs.Installer{Layout: cfg.PackageLayout(), Out: w}
	if e, err := cfg.Effective(config.Settings); err == nil && e.Root != nil {
		if v := e.Root.Get("npmCommand"); v != nil && v.Kind == jsonc.Array {
			for _, x := range v.Elems {
				if x.Node != nil && x.Node.Kind == jsonc.String {
					in.NpmCommand = append(in.NpmCommand, x.Node.Str)
				}
			}
		}
	}
	return in
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
	scope, cs := pkgScope(a)
	parsed := pkgs.Parse(src)
	fmt.Fprintf(c.Stderr, "Installing %s...\n", src)
	in := installer(cfg, c.Stderr)
	// A local source is resolved against the current folder (pi's resolvePath), then written
	// relative to the settings file's folder.
	if parsed.Kind == pkgs.Local {
		abs := in.Layout.ResolvePath(parsed.Local, in.Layout.Cwd)
		if err := in.Install(pkgs.Source{Kind: pkgs.Local, Local: abs}, scope); err != nil {
			fmt.Fprintf(c.Stderr, "pigo install: %v\n", err)
			return ExitFailed
		}
	} else if err := in.Install(parsed, scope); err != nil {
		fmt.Fprintf(c.Stderr, "pigo install: %v\n", err)
		return ExitFailed
	}
	if err := c.addPackageEntry(cfg, cs, scope, src); err != nil {
		fmt.Fprintf(c.Stderr, "pigo install: %s was installed but settings.json was not changed: %v\n", src, err)
		return ExitFailed
	}
	fmt.Fprintf(c.Stdout, "Installed %s\n", src)
	return ExitOK
}

// layerPackages returns the `packages` array of one settings layer (nil when absent).
func layerPackages(cfg *config.Config, cs config.Scope) *jsonc.Node {
	f := cfg.Layer(config.Settings, cs)
	if f == nil || f.Root == nil || f.Root.Kind != jsonc.Object {
		return nil
	}
	if v := f.Root.Get("packages"); v != nil && v.Kind == jsonc.Array {
		return v
	}
	return nil
}

// entrySource is the source string of a packages element ("" for another shape).
func entrySource(e *jsonc.Node) (string, bool) {
	switch e.Kind {
	case jsonc.String:
		return e.Str, false
	case jsonc.Object:
		if s := e.Get("source"); s != nil && s.Kind == jsonc.String {
			return s.Str, true
		}
	}
	return "", false
}

// matchKey is pi's source match key: npm by name, git by host and path, local by the path
// resolved against base.
func matchKey(l pkgs.Layout, src, base string) string {
	return pkgs.Parse(src).Identity(l, base)
}

// addPackageEntry is pi's addSourceToSettings: an entry for the same package gets the new
// source (an object keeps its filters); otherwise the source is appended. A local path is
// written relative to the settings file's folder.
func (c *CLI) addPackageEntry(cfg *config.Config, cs config.Scope, scope pkgs.Scope, src string) error {
	l := cfg.PackageLayout()
	base := l.BaseDir(scope)
	norm := src
	if p := pkgs.Parse(src); p.Kind == pkgs.Local {
		abs := l.ResolvePath(p.Local, l.Cwd)
		if rel, err := filepath.Rel(base, abs); err == nil {
			norm = rel
		}
	}
	want := matchKey(l, src, l.Cwd)
	var ops []config.EditOp
	if list := layerPackages(cfg, cs); list != nil {
		for i, e := range list.Elems {
			s, obj := entrySource(e)
			if s == "" || matchKey(l, s, base) != want {
				continue
			}
			if s == norm {
				return nil
			}
			path := fmt.Sprintf("packages[%d]", i)
			if obj {
				path += ".source"
			}
			v, _ := json.Marshal(norm)
			ops = append(ops, config.EditOp{Op: config.OpSet, Path: path, Value: v})
			break
		}
	}
	if ops == nil {
		v, _ := json.Marshal(norm)
		ops = append(ops, config.EditOp{Op: config.OpAdd, Path: "packages", Value: v})
	}
	ch, err := cfg.Apply(config.Settings, cs, false, ops...)
	if err != nil {
		return editError(err)
	}
	if ch != nil {
		c.notice(ch.Warnings)
	}
	return nil
}

// editError renders an edit refusal with its first diagnostic.
func editError(err error) error {
	var ee *config.EditError
	if errors.As(err, &ee) && len(ee.Diags) > 0 {
		d := ee.Diags.Sort()[0]
		return fmt.Errorf("%s (%s)", ee.Msg, d.Message)
	}
	return err
}

func runRemove(c *CLI, a *args) int {
	name := "remove"
	usage := "remove SOURCE [-l]"
	src, ok := c.onePackageArg(a, name, usage)
	if !ok {
		return ExitUsage
	}
	cfg, code := c.packageConfig(a)
	if cfg == nil {
		return code
	}
	scope, cs := pkgScope(a)
	l := cfg.PackageLayout()
	parsed := pkgs.Parse(src)
	if err := installer(cfg, c.Stderr).Remove(parsed, scope); err != nil {
		fmt.Fprintf(c.Stderr, "pigo remove: %v\n", err)
		return ExitFailed
	}
	want := matchKey(l, src, l.Cwd)
	var idx []int
	if list := layerPackages(cfg, cs); list != nil {
		for i, e := range list.Elems {
			if s, _ := entrySource(e); s != "" && matchKey(l, s, l.BaseDir(scope)) == want {
				idx = append(idx, i)
			}
		}
	}
	if len(idx) == 0 {
		fmt.Fprintf(c.Stderr, "pigo remove: no matching package found for %s%s\n", src, suggestion(cfg, src))
		return ExitFailed
	}
	slices.Reverse(idx)
	var ops []config.EditOp
	for _, i := range idx {
		ops = append(ops, config.EditOp{Op: config.OpUnset, Path: fmt.Sprintf("packages[%d]", i)})
	}
	if _, err := cfg.Apply(config.Settings, cs, false, ops...); err != nil {
		fmt.Fprintf(c.Stderr, "pigo remove: %s was uninstalled but settings.json was not changed: %v\n", src, editError(err))
		return ExitFailed
	}
	fmt.Fprintf(c.Stdout, "Removed %s\n", src)
	return ExitOK
}

// suggestion is pi's "Did you mean" for a bare npm name or a git shorthand that a configured
// source spells with its prefix.
func suggestion(cfg *config.Config, src string) string {
	t := strings.TrimSpace(src)
	for _, cs := range []config.Scope{config.Global, config.Project} {
		list := layerPackages(cfg, cs)
		if list == nil {
			continue
		}
		for _, e := range list.Elems {
			s, _ := entrySource(e)
			p := pkgs.Parse(s)
			switch {
			case p.Kind == pkgs.NPM && (t == p.Name || t == p.Spec),
				p.Kind == pkgs.Git && (t == p.Host+"/"+p.Path || p.Ref != "" && t == p.Host+"/"+p.Path+"@"+p.Ref):
				return ". Did you mean " + s + "?"
			}
		}
	}
	return ""
}

type listedPackage struct {
	Source    string `json:"source"`
	Scope     string `json:"scope"`
	Filtered  bool   `json:"filtered"`
	Installed string `json:"installed_path,omitempty"`
}

type listJSON struct {
	Version  int             `json:"version"`
	Packages []listedPackage `json:"packages"`
}

// configuredPackages is pi's listConfiguredPackages: the user's entries, then the project's.
func configuredPackages(cfg *config.Config) []listedPackage {
	l := cfg.PackageLayout()
	out := []listedPackage{}
	for _, s := range []struct {
		cs config.Scope
		ps pkgs.Scope
	}{{config.Global, pkgs.User}, {config.Project, pkgs.Project}} {
		if s.cs == config.Project && !cfg.Trusted {
			continue
		}
		list := layerPackages(cfg, s.cs)
		if list == nil {
			continue
		}
		for _, e := range list.Elems {
			src, obj := entrySource(e)
			if src == "" {
				continue
			}
			lp := listedPackage{Source: src, Scope: string(s.ps), Filtered: obj}
			if p := l.InstallPath(pkgs.Parse(src), s.ps); fileExists(p) {
				lp.Installed = p
			}
			out = append(out, lp)
		}
	}
	return out
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
	list := configuredPackages(cfg)
	if format == "json" {
		return c.writeJSON(listJSON{Version: 1, Packages: list})
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Stdout, "No packages installed.")
		return ExitOK
	}
	for i, scope := range []string{"user", "project"} {
		head := false
		for _, p := range list {
			if p.Scope != scope {
				continue
			}
			if !head {
				if i == 1 && slices.ContainsFunc(list, func(x listedPackage) bool { return x.Scope == "user" }) {
					fmt.Fprintln(c.Stdout)
				}
				fmt.Fprintf(c.Stdout, "%s packages:\n", strings.ToUpper(scope[:1])+scope[1:])
				head = true
			}
			d := p.Source
			if p.Filtered {
				d += " (filtered)"
			}
			fmt.Fprintf(c.Stdout, "  %s\n", d)
			if p.Installed != "" {
				fmt.Fprintf(c.Stdout, "    %s\n", p.Installed)
			}
		}
	}
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
	l := cfg.PackageLayout()
	in := installer(cfg, c.Stderr)
	matched := false
	var updated, failed []string
	for _, p := range configuredPackages(cfg) {
		scope := pkgs.Scope(p.Scope)
		src := pkgs.Parse(p.Source)
		if target != "" && matchKey(l, p.Source, l.BaseDir(scope)) != matchKey(l, target, l.Cwd) {
			continue
		}
		matched = true
		if src.Kind == pkgs.Local || src.Kind == pkgs.NPM && src.Pinned {
			continue
		}
		fmt.Fprintf(c.Stderr, "Updating %s...\n", p.Source)
		from, to, err := in.Update(src, scope)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", p.Source, err))
			continue
		}
		if from != to {
			short := func(s string) string {
				if s == "" {
					return "(none)"
				}
				if src.Kind == pkgs.Git && len(s) > 7 {
					return s[:7]
				}
				return s
			}
			sc := ""
			if scope == pkgs.Project {
				sc = " (project)"
			}
			updated = append(updated, fmt.Sprintf("%s%s %s -> %s", p.Source, sc, short(from), short(to)))
		}
	}
	if target != "" && !matched {
		fmt.Fprintf(c.Stderr, "pigo update: no matching package found for %s%s\n", target, suggestion(cfg, target))
		return ExitFailed
	}
	for _, f := range failed {
		fmt.Fprintf(c.Stderr, "pigo update: %s\n", f)
	}
	switch {
	case len(updated) > 0:
		fmt.Fprintf(c.Stdout, "Updated %s:\n", plural(len(updated), "package"))
		for _, u := range updated {
			fmt.Fprintf(c.Stdout, "  %s\n", u)
		}
	case len(failed) > 0:
	case target != "":
		fmt.Fprintf(c.Stdout, "%s is already up to date\n", target)
	default:
		fmt.Fprintln(c.Stdout, "Packages are already up to date")
	}
	if len(failed) > 0 {
		return ExitFailed
	}
	return ExitOK
}

// installMissing installs the declared packages that are not installed (or whose installed npm
// version does not match), as pi does when a session starts, and returns the configuration
// read again. A package that fails to install is a warning: its resources are skipped and the
// session runs (pi's behaviour). PI_OFFLINE skips installing, as in pi.
func (c *CLI) installMissing(cfg *config.Config, out io.Writer) *config.Config {
	res := cfg.Packages()
	if res == nil {
		return cfg
	}
	var warn diag.List
	if offline(c.getenv("PI_OFFLINE")) {
		for _, p := range res.Packages {
			if p.Duplicate == "" && p.Source.Kind != pkgs.Local && !p.Installed {
				warn.Add(diag.FileSpan(diag.NewSource(p.Entry.File, nil)), diag.Warning, "package-missing", "",
					fmt.Sprintf("package %q is not installed and PI_OFFLINE is set: its skills and prompt templates are skipped", p.Source.Raw))
			}
		}
		c.notice(warn)
		return cfg
	}
	in := installer(cfg, out)
	npm := map[pkgs.Scope][]*pkgs.Package{}
	var scopes []pkgs.Scope
	any := false
	fail := func(p *pkgs.Package, err error) {
		hint := "check the source and try again"
		if p.Entry.Scope != pkgs.Temporary {
			hint = "run `pigo remove " + p.Source.Raw
			if p.Entry.Scope == pkgs.Project {
				hint += " -l"
			}
			hint += "` to remove it from settings.json"
		}
		msg := fmt.Sprintf("package %q failed to install (%v); its skills and prompt templates are skipped: %s", p.Source.Raw, firstLine(err), hint)
		file := p.Entry.File
		if file == "" {
			file = "-e " + p.Source.Raw
		}
		warn.Add(diag.FileSpan(diag.NewSource(file, nil)), diag.Warning, "package-install-failed", "", msg)
	}
	for _, p := range res.Packages {
		if p.Duplicate != "" || p.Source.Kind == pkgs.Local || p.Installed && !p.Stale {
			continue
		}
		any = true
		if p.Source.Kind == pkgs.NPM {
			if npm[p.Scope] == nil {
				scopes = append(scopes, p.Scope)
			}
			npm[p.Scope] = append(npm[p.Scope], p)
			continue
		}
		fmt.Fprintf(out, "Installing %s...\n", p.Source.Raw)
		if err := in.Install(p.Source, p.Scope); err != nil {
			fail(p, err)
		}
	}
	for _, s := range scopes {
		var specs []string
		for _, p := range npm[s] {
			specs = append(specs, p.Source.Spec)
		}
		fmt.Fprintf(out, "Installing %s...\n", strings.Join(specs, ", "))
		if err := in.InstallNpm(specs, s); err != nil {
			if len(npm[s]) == 1 {
				fail(npm[s][0], err)
				continue
			}
			// One bad spec fails npm's whole batch: install one by one to find it.
			for _, p := range npm[s] {
				if err := in.InstallNpm([]string{p.Source.Spec}, s); err != nil {
					fail(p, err)
				}
			}
		}
	}
	c.notice(warn)
	if !any {
		return cfg
	}
	fresh, err := cfg.Reload()
	if err != nil {
		return cfg
	}
	return fresh
}

func offline(v string) bool {
	v = strings.ToLower(v)
	return v == "1" || v == "true" || v == "yes"
}

// firstLine shortens a command error to one line: its first line and the first line of the
// command's output (git's "fatal: …", npm's "npm error …").
func firstLine(err error) string {
	head, rest, ok := strings.Cut(err.Error(), "\n")
	if !ok {
		return head
	}
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.TrimSuffix(strings.TrimSpace(head), ":") + ": " + l
		}
	}
	return head
}

// packageNotes prints, at session start, one line per package whose code extensions do not run
// (with pigo's native equivalent) and per declared package that is not installed.
func (c *CLI) packageNotes(cfg *config.Config) {
	for _, l := range cfg.PackageLines() {
		fmt.Fprintln(c.Stderr, "pigo: "+l)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
