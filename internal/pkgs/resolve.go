package pkgs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Entry is one declaration of a package: a `packages` element of a settings file, or a -e
// source for one run.
type Entry struct {
	// Source is the source string as written.
	Source string
	// Object is true for the object form ({"source": …, "skills": […], …}).
	Object bool
	// Filter holds the object form's resource lists that are present; a present empty list
	// (load none of that type) is a non-nil empty slice.
	Filter map[Type][]string
	// Autoload is the object form's autoload value (nil when absent).
	Autoload *bool
	Scope    Scope
	// File and Index say where the entry is declared (messages).
	File  string
	Index int
}

// delta reports whether the entry is a filtering delta (`autoload: false`).
func (e *Entry) delta() bool { return e.Object && e.Autoload != nil && !*e.Autoload }

// Problem is something about a package pigo does not use, with the path it concerns. Minor
// ones (a manifest path that leads nowhere) are only worth an info.
type Problem struct {
	Path  string
	Msg   string
	Minor bool
}

// Package is one resolved declaration.
type Package struct {
	Entry  Entry
	Source Source
	// Scope is where the package is installed: the entry's scope, or the user scope for a
	// project `autoload: false` entry that narrows a user package.
	Scope Scope
	// Root is the package folder (where it is or would be installed).
	Root string
	// Installed is false for an npm or git package that is not installed yet and for a local
	// source that does not exist.
	Installed bool
	// Version is the installed npm version ("" when unknown).
	Version string
	// Stale is true when the installed npm version does not satisfy the declared one.
	Stale bool
	// Problems are the paths of the package pigo refuses or cannot use.
	Problems []Problem
	// Duplicate names the declaration this one loses to (same identity), or "".
	Duplicate string
}

// Resource is one resource file of a package, enabled or filtered out.
type Resource struct {
	Type    Type
	Path    string
	Enabled bool
	Package *Package
}

// Result is the resolution of a list of declarations.
type Result struct {
	// Packages are the declarations in resolution order (-e sources, then the project's, then
	// the user's), duplicates included (with Duplicate set).
	Packages []*Package
	// Resources are every type's resources in load order, each path once (the first
	// declaration that reaches a file decides whether it is enabled).
	Resources map[Type][]Resource
}

// Enabled returns the enabled resources of one type, in load order.
func (r *Result) Enabled(t Type) []Resource {
	var out []Resource
	for _, x := range r.Resources[t] {
		if x.Enabled {
			out = append(out, x)
		}
	}
	return out
}

// Options tune a resolution.
type Options struct {
	// GlobalNpmRoot returns npm's global node_modules folder, where pi finds user packages that
	// older pi versions installed with npm -g; nil or "" skips that place.
	GlobalNpmRoot func() string
}

// Resolve finds the declared packages where pi installs them and collects their resources,
// with pi's rules: -e (temporary) entries first, then project entries before user entries;
// one declaration per identity (the project's wins, except that a project `autoload: false`
// entry is a delta over the user's); manifest lists or conventional folders; settings filters.
// Resolve only reads: packages that are not installed are returned with Installed false.
func Resolve(l Layout, entries []Entry, o Options) *Result {
	r := &Result{Resources: map[Type][]Resource{}}
	acc := accumulator{}
	var temp, settings []Entry
	for _, e := range entries {
		if e.Scope == Temporary {
			temp = append(temp, e)
		} else {
			settings = append(settings, e)
		}
	}
	for _, e := range temp {
		r.resolveOne(l, e, nil, &acc, o)
	}
	kept, dups := dedupe(l, settings)
	for _, d := range dups {
		p := &Package{Entry: d.entry, Source: Parse(d.entry.Source), Scope: d.entry.Scope, Duplicate: d.winner}
		r.Packages = append(r.Packages, p)
	}
	for _, e := range kept {
		r.resolveOne(l, e, kept, &acc, o)
	}
	// Every path once, the first reference deciding (pi de-duplicates by real path).
	for _, t := range Types {
		seen := map[string]bool{}
		for _, x := range acc[t] {
			k := realPath(x.Path)
			if seen[k] {
				continue
			}
			seen[k] = true
			r.Resources[t] = append(r.Resources[t], x)
		}
	}
	return r
}

type dupEntry struct {
	entry  Entry
	winner string
}

// dedupe is pi's dedupePackages over entries in declaration order (project before user).
func dedupe(l Layout, entries []Entry) (kept []Entry, dups []dupEntry) {
	seen := map[string]int{}
	for _, e := range entries {
		id := Parse(e.Source).Identity(l, l.BaseDir(e.Scope))
		i, ok := seen[id]
		if !ok {
			seen[id] = len(kept)
			kept = append(kept, e)
			continue
		}
		prev := kept[i]
		switch {
		case prev.Scope == Project && e.Scope == User:
			if prev.delta() {
				kept = append(kept, e)
				continue
			}
			dups = append(dups, dupEntry{e, prev.Source})
		case e.Scope == Project:
			kept[i] = e
			dups = append(dups, dupEntry{prev, e.Source})
		default:
			dups = append(dups, dupEntry{e, prev.Source})
		}
	}
	return kept, dups
}

// accumulator keeps, per type, the resources in the order they were first reached.
type accumulator map[Type][]Resource

func (a accumulator) add(t Type, p string, enabled bool, pkg *Package) {
	for _, x := range a[t] {
		if x.Path == p {
			return
		}
	}
	a[t] = append(a[t], Resource{Type: t, Path: p, Enabled: enabled, Package: pkg})
}

// resolveOne resolves one kept declaration into acc (pi's resolvePackageSources body).
func (r *Result) resolveOne(l Layout, e Entry, all []Entry, acc *accumulator, o Options) {
	src := Parse(e.Source)
	pkg := &Package{Entry: e, Source: src, Scope: e.Scope}
	r.Packages = append(r.Packages, pkg)
	// A project autoload:false entry narrows the user's declaration of the same package.
	resolved := src
	if e.Scope == Project && e.delta() {
		id := src.Identity(l, l.BaseDir(Project))
		for _, u := range all {
			if u.Scope == User && Parse(u.Source).Identity(l, l.BaseDir(User)) == id {
				resolved, pkg.Scope = Parse(u.Source), User
				break
			}
		}
	}
	pkg.Root = l.InstallPath(resolved, pkg.Scope)
	if resolved.Kind == NPM && pkg.Scope == User && !exists(pkg.Root) && o.GlobalNpmRoot != nil {
		if g := o.GlobalNpmRoot(); g != "" {
			if p := filepath.Join(g, filepath.FromSlash(resolved.Name)); exists(p) {
				pkg.Root = p
			}
		}
	}
	st, err := os.Stat(pkg.Root)
	if err != nil {
		return
	}
	pkg.Installed = true
	if resolved.Kind == Local && !st.IsDir() {
		acc.add(Extensions, pkg.Root, true, pkg)
		return
	}
	if !st.IsDir() {
		pkg.Installed = false
		return
	}
	if resolved.Kind == NPM {
		pkg.Version = InstalledVersion(pkg.Root)
		pkg.Stale = pkg.Version == "" || !Satisfies(pkg.Version, resolved.Version)
	}
	root, _ := filepath.Abs(pkg.Root)
	w := newWalker(root, &pkg.Problems)
	if !collectPackage(l, w, e, pkg, *acc) && resolved.Kind == Local {
		acc.add(Extensions, root, true, pkg)
	}
}

// InstalledVersion is the version in an installed package's package.json ("" when unknown).
func InstalledVersion(root string) string {
	b, err := readSmall(filepath.Join(root, "package.json"), maxManifest)
	if err != nil {
		return ""
	}
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal([]byte(strings.TrimPrefix(string(b), "\ufeff")), &v) != nil {
		return ""
	}
	return v.Version
}

// collectPackage is pi's collectPackageResources: a settings filter, else the manifest, else
// the conventional folders. It reports whether the package declared any resources.
func collectPackage(l Layout, w *walker, e Entry, pkg *Package, acc accumulator) bool {
	root := w.root
	m := ReadManifest(filepath.Join(root, "package.json"))
	if e.Object {
		for _, t := range Types {
			pats, present := e.Filter[t]
			switch {
			case e.delta():
				if len(pats) == 0 {
					continue
				}
				all := manifestFiles(l, w, m, t)
				order, state := l.applyDelta(all, pats, root)
				for _, f := range order {
					acc.add(t, f, state[f], pkg)
				}
			case present:
				all := manifestFiles(l, w, m, t)
				on := map[string]bool{}
				if len(pats) > 0 {
					for _, f := range l.applyPatterns(all, pats, root) {
						on[f] = true
					}
				}
				for _, f := range all {
					acc.add(t, f, on[f], pkg)
				}
			default:
				if list, ok := m.list(t); ok {
					addManifest(l, w, list, t, pkg, acc)
				} else if dir := filepath.Join(root, string(t)); exists(dir) {
					for _, f := range w.resourceFiles(dir, t) {
						acc.add(t, f, true, pkg)
					}
				}
			}
		}
		return true
	}
	if m.has() {
		for _, t := range Types {
			if list, ok := m.list(t); ok {
				addManifest(l, w, list, t, pkg, acc)
			}
		}
		return true
	}
	any := false
	for _, t := range Types {
		dir := filepath.Join(root, string(t))
		if !exists(dir) {
			continue
		}
		any = true
		if !w.confined(dir) {
			continue
		}
		for _, f := range w.resourceFiles(dir, t) {
			acc.add(t, f, true, pkg)
		}
	}
	return any
}

func (m *Manifest) list(t Type) ([]string, bool) {
	if m == nil {
		return nil, false
	}
	l, ok := m.Lists[t]
	return l, ok
}

// addManifest adds the files a manifest list names, minus those its own patterns filter out
// (pi's addManifestEntries: filtered-out files are not added at all).
func addManifest(l Layout, w *walker, list []string, t Type, pkg *Package, acc accumulator) {
	all := w.fromManifest(list, t)
	var pats []string
	for _, e := range list {
		if isOverride(e) {
			pats = append(pats, e)
		}
	}
	for _, f := range l.applyPatterns(all, pats, w.root) {
		acc.add(t, f, true, pkg)
	}
}

// manifestFiles is pi's collectManifestFiles: the files a package offers for one type (its
// manifest list after the list's own patterns, else its conventional folder), which a settings
// filter then narrows.
func manifestFiles(l Layout, w *walker, m *Manifest, t Type) []string {
	if list, ok := m.list(t); ok && len(list) > 0 {
		all := w.fromManifest(list, t)
		var pats []string
		for _, e := range list {
			if isOverride(e) {
				pats = append(pats, e)
			}
		}
		if len(pats) == 0 {
			return all
		}
		return l.applyPatterns(all, pats, w.root)
	}
	dir := filepath.Join(w.root, string(t))
	if !exists(dir) || !w.confined(dir) {
		return nil
	}
	return w.resourceFiles(dir, t)
}
