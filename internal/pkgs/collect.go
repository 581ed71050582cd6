package pkgs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/frontmatter"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// Type is a kind of package resource.
type Type string

// The resource types of a pi package, in pi's order.
const (
	Extensions Type = "extensions"
	Skills     Type = "skills"
	Prompts    Type = "prompts"
	Themes     Type = "themes"
)

// Types lists the resource types in pi's order.
var Types = []Type{Extensions, Skills, Prompts, Themes}

// Limits of one package's discovery, so that a hostile package cannot make pigo walk forever.
const (
	// MaxEntries is the most directory entries one package's discovery visits.
	MaxEntries = 50000
	// MaxDepth is the deepest folder discovery descends into.
	MaxDepth = 32
	// maxManifest is the largest package.json read.
	maxManifest = 4 << 20
	// maxPeek is the largest Markdown file whose frontmatter is read to decide whether a root
	// .md file of a skills folder is a skill; larger ones are kept (and refused when loaded).
	maxPeek = 4 << 20
)

// Manifest is the `pi` object of a package.json: the resource lists (nil when absent; only an
// array of strings counts, as in pi's readPiManifest).
type Manifest struct {
	Lists map[Type][]string
}

// has reports whether the manifest lists any resources (pi's hasManifestResourceFields).
func (m *Manifest) has() bool { return m != nil && len(m.Lists) > 0 }

// ReadManifest reads the pi manifest of a package.json; nil when the file is missing, is not
// JSON, or has no `pi` object.
func ReadManifest(packageJSON string) *Manifest {
	b, err := readSmall(packageJSON, maxManifest)
	if err != nil {
		return nil
	}
	var pkg map[string]json.RawMessage
	if json.Unmarshal([]byte(strings.TrimPrefix(string(b), "\ufeff")), &pkg) != nil {
		return nil
	}
	var pi map[string]json.RawMessage
	if raw, ok := pkg["pi"]; !ok || json.Unmarshal(raw, &pi) != nil || pi == nil {
		return nil
	}
	m := &Manifest{Lists: map[Type][]string{}}
	for _, t := range Types {
		var list []string
		if raw, ok := pi[string(t)]; ok && json.Unmarshal(raw, &list) == nil && list != nil {
			m.Lists[t] = list
		}
	}
	return m
}

// walker discovers the files of one package, confined to its real root: a symbolic link that
// leads out of the package is refused (a problem), and the walk is bounded.
type walker struct {
	root    string // the package folder as found
	real    string // its real path
	visited int
	stopped bool
	probs   *[]Problem
	seen    map[string]bool // problems already reported, by path
}

func newWalker(root string, probs *[]Problem) *walker {
	return &walker{root: root, real: realPath(root), probs: probs, seen: map[string]bool{}}
}

func (w *walker) problem(path, msg string) {
	if w.seen[path+"\x00"+msg] {
		return
	}
	w.seen[path+"\x00"+msg] = true
	*w.probs = append(*w.probs, Problem{Path: path, Msg: msg})
}

func (w *walker) minor(path, msg string) {
	if w.seen[path+"\x00"+msg] {
		return
	}
	w.seen[path+"\x00"+msg] = true
	*w.probs = append(*w.probs, Problem{Path: path, Msg: msg, Minor: true})
}

// confined reports whether p, once links are resolved, stays inside the package; a path that
// leaves it is reported once.
func (w *walker) confined(p string) bool {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true // missing: callers stat it and skip it
	}
	if r, err = filepath.Abs(r); err != nil {
		return false
	}
	if inside(r, w.real) {
		return true
	}
	w.problem(p, fmt.Sprintf("is a symbolic link to %s, outside the package; pigo does not follow it", r))
	return false
}

// entry is a directory entry with its type resolved through a symbolic link.
type entry struct {
	name        string
	path        string
	isDir, file bool
}

// list reads a folder in name order, resolving links (refusing those that leave the package)
// and counting every entry against the budget.
func (w *walker) list(dir string) []entry {
	if w.stopped {
		return nil
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []entry
	for _, de := range des {
		w.visited++
		if w.visited > MaxEntries {
			if !w.stopped {
				w.stopped = true
				w.problem(w.root, fmt.Sprintf("has more than %d files and folders; pigo stopped looking for resources in it", MaxEntries))
			}
			return out
		}
		e := entry{name: de.Name(), path: filepath.Join(dir, de.Name())}
		t := de.Type()
		if t&fs.ModeSymlink != 0 {
			if strings.HasPrefix(e.name, ".") || e.name == "node_modules" {
				continue // skipped anyway; never resolved
			}
			st, err := os.Stat(e.path)
			if err != nil {
				continue // a broken link, skipped as pi does
			}
			if !w.confined(e.path) {
				continue
			}
			t = st.Mode().Type()
		}
		e.isDir, e.file = t.IsDir(), t.IsRegular()
		out = append(out, e)
	}
	return out
}

func (w *walker) rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// files collects the files of one extension below dir (prompts: .md, themes: .json), pi's
// collectFiles: dot-entries and node_modules skipped, ignore files honoured.
func (w *walker) files(dir, ext string, ig *ignorer, root string, depth int) []string {
	if depth > MaxDepth {
		return nil
	}
	ig.add(dir, root)
	var out []string
	for _, e := range w.list(dir) {
		if strings.HasPrefix(e.name, ".") || e.name == "node_modules" {
			continue
		}
		rel := w.rel(root, e.path)
		if ig.ignored(rel, e.isDir) {
			continue
		}
		if e.isDir {
			out = append(out, w.files(e.path, ext, ig, root, depth+1)...)
		} else if e.file && strings.HasSuffix(e.name, ext) {
			out = append(out, e.path)
		}
	}
	return out
}

// skills collects skill files below dir (pi's collectSkillEntries in "pi" mode): a folder with
// a SKILL.md is one skill and is not searched further; Markdown files directly in the top
// folder are candidates too; other folders are searched.
func (w *walker) skills(dir string, ig *ignorer, root string, depth int) []string {
	if depth > MaxDepth {
		return nil
	}
	ig.add(dir, root)
	entries := w.list(dir)
	for _, e := range entries {
		if e.name == "SKILL.md" && e.file && !ig.ignored(w.rel(root, e.path), false) {
			return []string{e.path}
		}
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.name, ".") || e.name == "node_modules" {
			continue
		}
		rel := w.rel(root, e.path)
		if e.file && strings.HasSuffix(e.name, ".md") && !ig.ignored(rel, false) && dir == root {
			if IsSkillFile(e.path) {
				out = append(out, e.path)
			}
			continue
		}
		if !e.isDir || ig.ignored(rel, true) {
			continue
		}
		out = append(out, w.skills(e.path, ig, root, depth+1)...)
	}
	return out
}

// IsSkillFile reports whether a Markdown file that is not a SKILL.md is a skill: pi loads such
// a file only when its frontmatter has a non-empty description, and skips it silently
// otherwise. A file too large to peek at is kept (it is refused, with its size, when loaded).
func IsSkillFile(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	if st.Size() > maxPeek {
		return true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	doc, err := frontmatter.Parse(b)
	if err != nil || doc.Data == nil {
		return false
	}
	d := doc.Data.Get("description")
	return d != nil && d.Kind == jsonc.String && strings.TrimSpace(d.Str) != ""
}

// extensionEntries is pi's resolveExtensionEntries: a folder's package.json pi.extensions (the
// files that exist), else index.ts, else index.js; nil when the folder is none of these.
func (w *walker) extensionEntries(dir string) []string {
	if m := ReadManifest(filepath.Join(dir, "package.json")); m != nil && len(m.Lists[Extensions]) > 0 {
		var out []string
		for _, p := range m.Lists[Extensions] {
			rp := filepath.Join(dir, p)
			if exists(rp) && w.confined(rp) && w.within(rp, "pi.extensions entry") {
				out = append(out, rp)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, n := range []string{"index.ts", "index.js"} {
		if p := filepath.Join(dir, n); exists(p) {
			return []string{p}
		}
	}
	return nil
}

// extensions is pi's collectAutoExtensionEntries: the folder's own entry points, else its .ts
// and .js files and the subfolders that have entry points (one level).
func (w *walker) extensions(dir string) []string {
	if !exists(dir) {
		return nil
	}
	if e := w.extensionEntries(dir); e != nil {
		return e
	}
	ig := &ignorer{}
	ig.add(dir, dir)
	var out []string
	for _, e := range w.list(dir) {
		if strings.HasPrefix(e.name, ".") || e.name == "node_modules" {
			continue
		}
		if ig.ignored(w.rel(dir, e.path), e.isDir) {
			continue
		}
		switch {
		case e.file && (strings.HasSuffix(e.name, ".ts") || strings.HasSuffix(e.name, ".js")):
			out = append(out, e.path)
		case e.isDir:
			out = append(out, w.extensionEntries(e.path)...)
		}
	}
	return out
}

// resourceFiles collects one type's files below a folder (pi's collectResourceFiles).
func (w *walker) resourceFiles(dir string, t Type) []string {
	switch t {
	case Skills:
		return w.skills(dir, &ignorer{}, dir, 0)
	case Extensions:
		return w.extensions(dir)
	case Prompts:
		return w.files(dir, ".md", &ignorer{}, dir, 0)
	}
	return w.files(dir, ".json", &ignorer{}, dir, 0)
}

// within reports whether a path named by the package (a manifest entry) is inside it; a path
// that leaves the package is reported and not used.
func (w *walker) within(p, what string) bool {
	a, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	if inside(a, filepath.Clean(w.root)) || inside(realPath(a), w.real) {
		return true
	}
	if !exists(a) {
		// pi finds nothing there either (pi-lens declares "../../skills"): worth an info only.
		w.minor(p, fmt.Sprintf("%s leads outside the package, to nothing; nothing is loaded from it", what))
		return false
	}
	w.problem(p, fmt.Sprintf("%s leads outside the package; pigo does not follow it", what))
	return false
}

// fromPaths is pi's collectFilesFromPaths: files as they are, folders through resourceFiles.
func (w *walker) fromPaths(paths []string, t Type) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !w.confined(p) {
			continue
		}
		switch {
		case st.Mode().IsRegular():
			out = append(out, p)
		case st.IsDir():
			out = append(out, w.resourceFiles(p, t)...)
		}
	}
	return out
}

// fromManifest expands a manifest list (pi's collectFilesFromManifestEntries): entries that are
// not override patterns, globs expanded inside the package, then collected.
func (w *walker) fromManifest(entries []string, t Type) []string {
	var paths []string
	for _, e := range entries {
		if isOverride(e) {
			continue
		}
		if !hasGlob(e) {
			p := filepath.Join(w.root, e)
			if w.within(p, fmt.Sprintf("the manifest's %s entry %q", t, e)) {
				paths = append(paths, p)
			}
			continue
		}
		paths = append(paths, w.glob(e)...)
	}
	return w.fromPaths(paths, t)
}

// glob expands a manifest glob inside the package (pi's expandPackageGlob): matches under the
// pattern's literal leading folders, files and folders alike, none with a dot-segment, sorted.
func (w *walker) glob(pat string) []string {
	pat = strings.TrimPrefix(filepath.ToSlash(pat), "./")
	segs := strings.Split(pat, "/")
	lit := 0
	for lit < len(segs)-1 && !strings.ContainsAny(segs[lit], "*?[{") {
		lit++
	}
	start := filepath.Join(w.root, filepath.FromSlash(strings.Join(segs[:lit], "/")))
	if !w.within(start, fmt.Sprintf("the manifest glob %q", pat)) {
		return nil
	}
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > MaxDepth {
			return
		}
		for _, e := range w.list(dir) {
			rel := w.rel(w.root, e.path)
			if matchGlob(pat, rel) && !dotSegment(rel) {
				out = append(out, e.path)
			}
			if e.isDir {
				if fi, err := os.Lstat(e.path); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
					walk(e.path, depth+1)
				}
			}
		}
	}
	walk(start, 0)
	slices.Sort(out)
	return out
}

func dotSegment(rel string) bool {
	for _, s := range strings.Split(rel, "/") {
		if s != ".." && strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}
