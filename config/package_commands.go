package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pkgs"
)

// pi's package commands (D26, issue 27): install, remove, list and update, with pi's sources;
// local is -l (the project's settings, .pi/npm, .pi/git). The settings entry is written through
// the edit path (comments kept, locked, validated). The command line prints and maps to exit
// codes; every text of an error here is the one it prints after "pigo <command>: ".

// packageScopes maps -l onto the package scope and the config scope it edits.
func packageScopes(local bool) (pkgs.Scope, Scope) {
	if local {
		return pkgs.Project, Project
	}
	return pkgs.User, Global
}

// Installer is the package installer of this configuration: pi's folders, the settings'
// npmCommand, the commands' output on w.
func (c *Config) Installer(w io.Writer) *pkgs.Installer {
	in := &pkgs.Installer{Layout: c.PackageLayout(), Out: w}
	if e, err := c.Effective(Settings); err == nil && e.Root != nil {
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

// InstallPackage is `pigo install SOURCE [-l]`: the package installed (its commands' output
// on out), then added to settings.json. It returns the edit's warnings.
func (c *Config) InstallPackage(src string, local bool, out io.Writer) (diag.List, error) {
	scope, cs := packageScopes(local)
	parsed := pkgs.Parse(src)
	in := c.Installer(out)
	// A local source is resolved against the current folder (pi's resolvePath), then written
	// relative to the settings file's folder.
	if parsed.Kind == pkgs.Local {
		abs := in.Layout.ResolvePath(parsed.Local, in.Layout.Cwd)
		if err := in.Install(pkgs.Source{Kind: pkgs.Local, Local: abs}, scope); err != nil {
			return nil, err
		}
	} else if err := in.Install(parsed, scope); err != nil {
		return nil, err
	}
	warn, err := c.addPackageEntry(cs, scope, src)
	if err != nil {
		return nil, fmt.Errorf("%s was installed but settings.json was not changed: %v", src, err)
	}
	return warn, nil
}

// layerPackages returns the `packages` array of one settings layer (nil when absent).
func (c *Config) layerPackages(cs Scope) *jsonc.Node {
	f := c.Layer(Settings, cs)
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
func (c *Config) addPackageEntry(cs Scope, scope pkgs.Scope, src string) (diag.List, error) {
	l := c.PackageLayout()
	base := l.BaseDir(scope)
	norm := src
	if p := pkgs.Parse(src); p.Kind == pkgs.Local {
		abs := l.ResolvePath(p.Local, l.Cwd)
		if rel, err := filepath.Rel(base, abs); err == nil {
			norm = rel
		}
	}
	want := matchKey(l, src, l.Cwd)
	var ops []EditOp
	if list := c.layerPackages(cs); list != nil {
		for i, e := range list.Elems {
			s, obj := entrySource(e)
			if s == "" || matchKey(l, s, base) != want {
				continue
			}
			if s == norm {
				return nil, nil
			}
			path := fmt.Sprintf("packages[%d]", i)
			if obj {
				path += ".source"
			}
			v, _ := json.Marshal(norm)
			ops = append(ops, EditOp{Op: OpSet, Path: path, Value: v})
			break
		}
	}
	if ops == nil {
		v, _ := json.Marshal(norm)
		ops = append(ops, EditOp{Op: OpAdd, Path: "packages", Value: v})
	}
	ch, err := c.Apply(Settings, cs, false, ops...)
	if err != nil {
		return nil, EditMessage(err)
	}
	if ch != nil {
		return ch.Warnings, nil
	}
	return nil, nil
}

// EditMessage renders an edit refusal with its first diagnostic.
func EditMessage(err error) error {
	var ee *EditError
	if errors.As(err, &ee) && len(ee.Diags) > 0 {
		d := ee.Diags.Sort()[0]
		return fmt.Errorf("%s (%s)", ee.Msg, d.Message)
	}
	return err
}

// RemovePackage is `pigo remove SOURCE [-l]`: the package uninstalled (its commands' output
// on out), then its entries removed from settings.json.
func (c *Config) RemovePackage(src string, local bool, out io.Writer) error {
	scope, cs := packageScopes(local)
	l := c.PackageLayout()
	if err := c.Installer(out).Remove(pkgs.Parse(src), scope); err != nil {
		return err
	}
	want := matchKey(l, src, l.Cwd)
	var idx []int
	if list := c.layerPackages(cs); list != nil {
		for i, e := range list.Elems {
			if s, _ := entrySource(e); s != "" && matchKey(l, s, l.BaseDir(scope)) == want {
				idx = append(idx, i)
			}
		}
	}
	if len(idx) == 0 {
		return fmt.Errorf("no matching package found for %s%s", src, c.packageSuggestion(src))
	}
	slices.Reverse(idx)
	var ops []EditOp
	for _, i := range idx {
		ops = append(ops, EditOp{Op: OpUnset, Path: fmt.Sprintf("packages[%d]", i)})
	}
	if _, err := c.Apply(Settings, cs, false, ops...); err != nil {
		return fmt.Errorf("%s was uninstalled but settings.json was not changed: %v", src, EditMessage(err))
	}
	return nil
}

// packageSuggestion is pi's "Did you mean" for a bare npm name or a git shorthand that a
// configured source spells with its prefix.
func (c *Config) packageSuggestion(src string) string {
	t := strings.TrimSpace(src)
	for _, cs := range []Scope{Global, Project} {
		list := c.layerPackages(cs)
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

// ConfiguredPackages is pi's listConfiguredPackages: the user's entries, then the project's.
func (c *Config) ConfiguredPackages() []pkgs.Listed {
	l := c.PackageLayout()
	out := []pkgs.Listed{}
	for _, s := range []struct {
		cs Scope
		ps pkgs.Scope
	}{{Global, pkgs.User}, {Project, pkgs.Project}} {
		if s.cs == Project && !c.Trusted {
			continue
		}
		list := c.layerPackages(s.cs)
		if list == nil {
			continue
		}
		for _, e := range list.Elems {
			src, obj := entrySource(e)
			if src == "" {
				continue
			}
			lp := pkgs.Listed{Source: src, Scope: string(s.ps), Filtered: obj}
			if p := l.InstallPath(pkgs.Parse(src), s.ps); fileExists(p) {
				lp.Installed = p
			}
			out = append(out, lp)
		}
	}
	return out
}

// UpdatePackages is `pigo update [SOURCE]`: every configured package (or the one target
// names) that is not local or pinned is updated, "Updating …" on progress.
func (c *Config) UpdatePackages(target string, progress io.Writer) (pkgs.Updates, error) {
	l := c.PackageLayout()
	in := c.Installer(progress)
	res := pkgs.Updates{Target: target}
	matched := false
	for _, p := range c.ConfiguredPackages() {
		scope := pkgs.Scope(p.Scope)
		src := pkgs.Parse(p.Source)
		if target != "" && matchKey(l, p.Source, l.BaseDir(scope)) != matchKey(l, target, l.Cwd) {
			continue
		}
		matched = true
		if src.Kind == pkgs.Local || src.Kind == pkgs.NPM && src.Pinned {
			continue
		}
		fmt.Fprintf(progress, "Updating %s...\n", p.Source)
		from, to, err := in.Update(src, scope)
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", p.Source, err))
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
			res.Updated = append(res.Updated, fmt.Sprintf("%s%s %s -> %s", p.Source, sc, short(from), short(to)))
		}
	}
	if target != "" && !matched {
		return res, fmt.Errorf("no matching package found for %s%s", target, c.packageSuggestion(target))
	}
	return res, nil
}

// InstallMissing installs the declared packages that are not installed (or whose installed
// npm version does not match), as pi does when a session starts, and returns the
// configuration read again with the warnings to show. A package that fails to install is a
// warning: its resources are skipped and the session runs (pi's behaviour). offline
// ($PI_OFFLINE) skips installing, as in pi.
func (c *Config) InstallMissing(offline bool, out io.Writer) (*Config, diag.List) {
	res := c.Packages()
	if res == nil {
		return c, nil
	}
	var warn diag.List
	if offline {
		for _, p := range res.Packages {
			if p.Duplicate == "" && p.Source.Kind != pkgs.Local && !p.Installed {
				warn.Add(diag.FileSpan(diag.NewSource(p.Entry.File, nil)), diag.Warning, "package-missing", "",
					fmt.Sprintf("package %q is not installed and offline mode is on (--offline or PI_OFFLINE): its skills and prompt templates are skipped", p.Source.Raw))
			}
		}
		return c, warn
	}
	in := c.Installer(out)
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
	if !any {
		return c, warn
	}
	fresh, err := c.Reload()
	if err != nil {
		return c, warn
	}
	return fresh, warn
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

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
