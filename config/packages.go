package config

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/pkgs"
	"github.com/pigo-agent/pigo/internal/safefile"
)

// pi packages (D26): the `packages` of the user's and the trusted project's settings, and the
// -e npm:/git:/folder sources, found where pi installs them (internal/pkgs). Their skills and
// prompt templates become files of the configuration like the agent dir's own, checked and
// resolved the same way; their themes are listed (Themes); their code extensions are named,
// one info each, with pigo's native equivalent where there is one.

// PackageLayout is where pi keeps packages for this configuration.
func (c *Config) PackageLayout() pkgs.Layout {
	cwd, err := filepath.Abs(c.ProjectDir)
	if err != nil {
		cwd = c.ProjectDir
	}
	return pkgs.Layout{AgentDir: c.AgentDir, Cwd: cwd, Home: c.Home}
}

// Packages is the resolution of every declared package (nil before Load).
func (c *Config) Packages() *pkgs.Result { return c.pkgs }

// IsPackageSource reports whether a -e argument names a package (npm:, git:, a git URL) rather
// than a declarative extension file: also a folder that is a package (a `pi` manifest with
// resource lists, or a skills/, prompts/, themes/ or extensions/ folder). A folder that is only
// a code extension (index.ts) is not: it is reported as a code extension (CodeExtension).
func IsPackageSource(e string) bool {
	if !pkgs.IsLocalPath(e) {
		return true
	}
	st, err := os.Stat(e)
	if err != nil || !st.IsDir() {
		return false
	}
	if m := pkgs.ReadManifest(filepath.Join(e, "package.json")); m != nil && len(m.Lists) > 0 {
		return true
	}
	for _, t := range pkgs.Types {
		if st, err := os.Stat(filepath.Join(e, string(t))); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// packageEntries reads the `packages` of one settings layer.
func packageEntries(f *File, scope pkgs.Scope) []pkgs.Entry {
	if f == nil || f.Root == nil || f.Root.Kind != jsonc.Object {
		return nil
	}
	v := f.Root.Get("packages")
	if v == nil || v.Kind != jsonc.Array {
		return nil
	}
	var out []pkgs.Entry
	for i, el := range v.Elems {
		e := pkgs.Entry{Scope: scope, File: f.Path, Index: i}
		switch el.Kind {
		case jsonc.String:
			e.Source = el.Str
		case jsonc.Object:
			s := el.Get("source")
			if s == nil || s.Kind != jsonc.String || strings.TrimSpace(s.Str) == "" {
				continue // the schema reports it
			}
			e.Source, e.Object, e.Filter = s.Str, true, map[pkgs.Type][]string{}
			if a := el.Get("autoload"); a != nil && a.Kind == jsonc.Bool {
				b := a.Bool
				e.Autoload = &b
			}
			for _, t := range pkgs.Types {
				if l := el.Get(string(t)); l != nil && l.Kind == jsonc.Array {
					var list []string
					agentStrList(l, &list) // a present list, [] included, is a non-nil slice
					e.Filter[t] = list
				}
			}
		default:
			continue
		}
		if strings.TrimSpace(e.Source) == "" {
			continue
		}
		out = append(out, e)
	}
	return out
}

// discoverPackages resolves the declared packages and adds their skills and prompt templates
// as files. It only reads: installing is `pigo install` and session start (InstallMissing).
func (c *Config) discoverPackages() {
	var entries []pkgs.Entry
	for i, e := range c.Opts.Extensions {
		if IsPackageSource(e) {
			entries = append(entries, pkgs.Entry{Source: e, Scope: pkgs.Temporary, Index: i})
		}
	}
	if c.Trusted {
		entries = append(entries, packageEntries(c.Layer(Settings, Project), pkgs.Project)...)
	}
	entries = append(entries, packageEntries(c.Layer(Settings, Global), pkgs.User)...)
	c.pkgs = &pkgs.Result{}
	if len(entries) == 0 {
		return
	}
	c.pkgs = pkgs.Resolve(c.PackageLayout(), entries, pkgs.Options{GlobalNpmRoot: c.globalNpmRoot})
	for _, t := range []pkgs.Type{pkgs.Skills, pkgs.Prompts} {
		kind := Skill
		if t == pkgs.Prompts {
			kind = Prompt
		}
		for _, r := range c.pkgs.Enabled(t) {
			// A Markdown file other than SKILL.md is a skill only with a description; pi skips
			// the others silently (a package's README.md listed among its skills).
			if t == pkgs.Skills && filepath.Base(r.Path) != "SKILL.md" && !pkgs.IsSkillFile(r.Path) {
				continue
			}
			c.addPackageFile(r, kind)
		}
	}
}

// packageScope is the file scope of a package's resources.
func packageScope(s pkgs.Scope) Scope {
	switch s {
	case pkgs.Project:
		return Project
	case pkgs.Temporary:
		return CLI
	}
	return Global
}

// addPackageFile reads one resource file of a package, confined to the package's real folder
// (a link out of it is refused, as a file too large is).
func (c *Config) addPackageFile(r pkgs.Resource, kind Kind) {
	scope := packageScope(r.Package.Entry.Scope)
	f := &File{Path: r.Path, Kind: kind, Scope: scope, Applied: true, Src: diag.NewSource(r.Path, nil), Package: r.Package}
	f.Name = resourceName(r.Path, kind)
	c.Files = append(c.Files, f)
	data, err := safefile.Read(r.Path, safefile.Options{Max: MaxFileSize, Within: safefile.Real(r.Package.Root), WithinName: "the package"})
	if err != nil {
		f.Broken, f.Applied = true, false
		f.Diags.Add(diag.FileSpan(f.Src), diag.Error, "io", "", ioMessage(err))
		return
	}
	f.Src.Text = data
	c.parseMarkdown(f)
}

// globalNpmRoot is npm's global node_modules folder, where pi also finds user packages that an
// older pi installed with npm -g. It is derived without running npm (every command would pay
// for npm's start): $npm_config_prefix, else the prefix line of ~/.npmrc, else the folder of
// the node on PATH.
func (c *Config) globalNpmRoot() string {
	prefix := c.Opts.getenv("npm_config_prefix")
	if prefix == "" {
		prefix = c.Opts.getenv("NPM_CONFIG_PREFIX")
	}
	if prefix == "" {
		if f, err := os.Open(filepath.Join(c.Home, ".npmrc")); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.TrimSpace(k) == "prefix" {
					prefix = strings.TrimSpace(v)
				}
			}
			f.Close()
		}
	}
	if prefix == "" {
		node, err := exec.LookPath("node")
		if err != nil {
			return ""
		}
		if r, err := filepath.EvalSymlinks(node); err == nil {
			node = r
		}
		prefix = filepath.Dir(filepath.Dir(node))
	}
	return filepath.Join(expandHome(prefix, c.Home), "lib", "node_modules")
}

// Native equivalents of well-known code packages: what pigo offers instead (D26).
var nativeEquivalents = []struct {
	match func(name string) bool
	says  string
}{
	{func(n string) bool { return n == "pi-web-access" || strings.HasSuffix(n, "/pi-web-access") },
		"pigo's web_search and web_fetch tools (the seed's web tools) are the native equivalent"},
	{func(n string) bool { return strings.Contains(n, "subagent") || strings.Contains(n, "sub-agent") },
		"pigo's spawn-agent tool with agents/*.md is the native equivalent"},
	{func(n string) bool { return strings.Contains(n, "mcp") },
		"pigo's mcp.json support (MCP servers as mcp__SERVER__TOOL tools) is the native equivalent"},
	{func(n string) bool { return strings.Contains(n, "lsp") },
		"pigo's lsp.json support and lsp-* tools are the native equivalent"},
}

// Equivalent names pigo's native equivalent of a code package ("" when there is none).
func Equivalent(src pkgs.Source) string {
	name := src.Name
	switch src.Kind {
	case pkgs.Git:
		name = src.Path
	case pkgs.Local:
		name = filepath.Base(src.Local)
	}
	name = strings.ToLower(name)
	for _, e := range nativeEquivalents {
		if e.match(name) {
			return e.says
		}
	}
	return ""
}

// CodeExtensions returns, per package, the code extensions it would have run in pi (enabled
// by its manifest and filters), in load order.
func (c *Config) CodeExtensions() map[*pkgs.Package][]string {
	out := map[*pkgs.Package][]string{}
	if c.pkgs == nil {
		return out
	}
	for _, r := range c.pkgs.Enabled(pkgs.Extensions) {
		out[r.Package] = append(out[r.Package], r.Path)
	}
	return out
}

// extensionLabel names an extension file inside its package.
func extensionLabel(p *pkgs.Package, path string) string {
	if rel, err := filepath.Rel(p.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// PackageLines are the session-start lines about packages (D26): one line per installed
// package whose code extensions do not run, naming pigo's native equivalent.
func (c *Config) PackageLines() []string {
	if c.pkgs == nil {
		return nil
	}
	ext := c.CodeExtensions()
	var out []string
	for _, p := range c.pkgs.Packages {
		if p.Duplicate != "" {
			continue
		}
		if !p.Installed {
			continue // installMissing says why
		}
		files := ext[p]
		if len(files) == 0 {
			continue
		}
		var names []string
		for _, f := range files {
			names = append(names, extensionLabel(p, f))
		}
		word := "extension"
		if len(files) > 1 {
			word = "extensions"
		}
		line := fmt.Sprintf("package %s: %d code %s not run (%s)", p.Source.Raw, len(files), word, strings.Join(names, ", "))
		if eq := Equivalent(p.Source); eq != "" {
			line += "; " + eq
		}
		out = append(out, line)
	}
	return out
}

// packageDiags reports the packages declared in one settings file: one info per code extension
// that does not run, a package that is not installed, one declared twice, and what pigo
// refused in a package (a link or path leading out of it).
func (c *Config) packageDiags(f *File) {
	v := f.Root.Get("packages")
	if v == nil || v.Kind != jsonc.Array || c.pkgs == nil {
		return
	}
	ext := c.CodeExtensions()
	for _, p := range c.pkgs.Packages {
		if p.Entry.File != f.Path || p.Entry.Index >= len(v.Elems) {
			continue
		}
		el := v.Elems[p.Entry.Index]
		sp := diag.At(f.Src, el.Start, el.End)
		path := fmt.Sprintf("packages[%d]", p.Entry.Index)
		src := p.Source.Raw
		switch {
		case p.Duplicate != "":
			f.Diags.Add(sp, diag.Info, "duplicate-package", path,
				fmt.Sprintf("package %q is also declared as %q, which wins (pi loads a package once: npm by name, git by URL without ref, local by path)", src, p.Duplicate))
			continue
		case !p.Installed && p.Source.Kind == pkgs.Local:
			f.Diags.Add(sp, diag.Warning, "package-missing", path, fmt.Sprintf("package %q: %s does not exist; nothing is loaded from it", src, p.Root))
			continue
		case !p.Installed:
			d := f.Diags.Add(sp, diag.Info, "package-missing", path,
				fmt.Sprintf("package %q is not installed (pi installs it into %s): its skills and prompt templates are missing until it is", src, p.Root))
			d.Hint = "`pigo install " + src + "` installs it; a session installs missing packages when it starts"
			continue
		case p.Stale:
			f.Diags.Add(sp, diag.Info, "package-stale", path,
				fmt.Sprintf("package %q: the installed version %s does not match the declared %q; `pigo install %s` updates it", src, orNone(p.Version), p.Source.Version, src))
		}
		for _, x := range ext[p] {
			msg := fmt.Sprintf("package %q: the code extension %s does not run in pigo (pigo runs no JavaScript), so the tools and commands it registers are missing",
				src, extensionLabel(p, x))
			if eq := Equivalent(p.Source); eq != "" {
				msg += "; " + eq
			}
			f.Diags.Add(sp, diag.Info, notLoadedCode, path, msg)
		}
		for _, pr := range p.Problems {
			sev := diag.Warning
			if pr.Minor {
				sev = diag.Info
			}
			f.Diags.Add(sp, sev, "package-refused", path, fmt.Sprintf("package %q: %s %s", src, pr.Path, pr.Msg))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// Theme is a theme file with where it comes from.
type Theme struct {
	// Path is the theme's JSON file.
	Path string
	// Scope is global (the agent dir's themes/ or a user package), project or cli (-e).
	Scope Scope
	// Package is the package source it comes from ("" for the agent dir's and the project's
	// own themes/ folders).
	Package string
}

// Themes lists the theme files pi would load, in pi's order: the -e packages' themes, the
// trusted project's (settings.json's "themes" entries, then .pi/themes/*.json), the agent dir's
// (its "themes" entries, then themes/*.json), then the packages' themes. The "themes" list's
// patterns ("!glob", "+path", "-path", and plain globs on the list's own entries) turn themes
// off as pi does (resource_filter.go); a file found twice is listed once, where it came first.
// A project's entries that lead outside the project are not listed (pigo reads a project's
// files only inside it). The chat reads them (engineer chat's theme loader).
func (c *Config) Themes() []Theme {
	var out []Theme
	var temp []Theme
	if c.pkgs != nil {
		for _, r := range c.pkgs.Enabled(pkgs.Themes) {
			t := Theme{Path: r.Path, Scope: packageScope(r.Package.Entry.Scope), Package: r.Package.Source.Raw}
			if r.Package.Entry.Scope == pkgs.Temporary {
				temp = append(temp, t)
			} else {
				out = append(out, t)
			}
		}
	}
	seen := map[string]bool{}
	var own []Theme
	add := func(path string, scope Scope, f *resourceFilter) {
		key := safefile.Real(path)
		if seen[key] {
			return
		}
		seen[key] = true
		if scope == Project && !safefile.Inside(key, safefile.Real(c.ProjectDir)) {
			return
		}
		if f.enabled(path) {
			own = append(own, Theme{Path: path, Scope: scope})
		}
	}
	jsonFiles := func(dir string, scope Scope) []string {
		var files []string
		for _, e := range c.listDir(dir, scope) {
			if strings.HasSuffix(e, ".json") {
				if st, err := os.Stat(e); err == nil && st.Mode().IsRegular() {
					files = append(files, e)
				}
			}
		}
		return files
	}
	for _, d := range []struct {
		base  string
		scope Scope
	}{{c.ProjectOverlay(), Project}, {c.AgentDir, Global}} {
		if d.scope == Project && !c.Trusted {
			continue
		}
		plain, pats := listPatterns(c.settingsList(d.scope, "themes"))
		var listed *resourceFilter
		if len(pats) > 0 {
			listed = newResourceFilter(pats, d.base, c.Home, true)
		}
		for _, e := range plain {
			p := c.listedPath(e, d.base)
			st, err := os.Stat(p)
			switch {
			case err != nil:
			case st.IsDir():
				for _, f := range jsonFiles(p, d.scope) {
					add(f, d.scope, listed)
				}
			case strings.HasSuffix(p, ".json"):
				add(p, d.scope, listed)
			}
		}
		auto := c.overrides(d.scope, "themes", d.base)
		for _, f := range jsonFiles(filepath.Join(d.base, "themes"), d.scope) {
			add(f, d.scope, auto)
		}
	}
	return append(append(temp, own...), out...)
}
