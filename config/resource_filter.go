package config

import (
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// resourceFilter is pi 1.6's reading of the patterns in settings.json's "skills", "prompts"
// and "themes" lists: "!glob" excludes what matches, "+path" includes one exact path again
// (over an exclusion), "-path" excludes one exact path (over everything). On the files the
// folders give by themselves only those three count; on the files the list's own plain entries
// give, a plain glob entry ("skills/*") also narrows them to what it matches. A pattern is
// matched against the path relative to base, the file's name and its absolute path; for a
// SKILL.md also against its folder (so "!skills/old" turns off the skill in skills/old/).
type resourceFilter struct {
	base, home                            string
	includes, excludes, forceIn, forceOut []string
	compiledIncludes, compiledExcludes    []*pattern.Pattern
}

// listPatterns splits a settings list into its plain entries (files and folders to load) and
// its patterns (pi's isPattern: a "!", "+" or "-" prefix, or a "*" or "?").
func listPatterns(entries []string) (plain, patterns []string) {
	for _, e := range entries {
		if isResourcePattern(e) {
			patterns = append(patterns, e)
		} else {
			plain = append(plain, e)
		}
	}
	return plain, patterns
}

func isResourcePattern(s string) bool {
	return strings.HasPrefix(s, "!") || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") || strings.ContainsAny(s, "*?")
}

// newResourceFilter compiles patterns relative to base. withIncludes keeps plain glob entries
// as includes (a list's own entries); without it only the overrides count (the folders').
func newResourceFilter(patterns []string, base, home string, withIncludes bool) *resourceFilter {
	f := &resourceFilter{base: base, home: home}
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "+"):
			f.forceIn = append(f.forceIn, p[1:])
		case strings.HasPrefix(p, "-"):
			f.forceOut = append(f.forceOut, p[1:])
		case strings.HasPrefix(p, "!"):
			f.excludes = append(f.excludes, p[1:])
		case withIncludes:
			f.includes = append(f.includes, p)
		}
	}
	f.compiledIncludes = f.compile(f.includes)
	f.compiledExcludes = f.compile(f.excludes)
	return f
}

// compile compiles glob patterns; one that does not compile matches nothing (pi's minimatch
// takes it as literal text, which matches no resource path with brackets left open).
func (f *resourceFilter) compile(globs []string) []*pattern.Pattern {
	var out []*pattern.Pattern
	for _, g := range globs {
		if p, err := pattern.Compile(filepath.ToSlash(f.expand(g))); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// expand is pi's normalizePath on a pattern: "~" and "~/…" from the home directory.
func (f *resourceFilter) expand(p string) string {
	switch {
	case p == "~":
		return f.home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(f.home, p[2:])
	}
	return p
}

// enabled reports whether path stays loaded.
func (f *resourceFilter) enabled(path string) bool {
	if f == nil {
		return true
	}
	on := len(f.includes) == 0 || f.matches(path, f.compiledIncludes)
	if on && f.matches(path, f.compiledExcludes) {
		on = false
	}
	if !on && f.matchesExact(path, f.forceIn) {
		on = true
	}
	if on && f.matchesExact(path, f.forceOut) {
		on = false
	}
	return on
}

// forms are the names a pattern is matched against: the path relative to base, the file's
// name and its absolute path; for a SKILL.md also its folder's.
func (f *resourceFilter) forms(path string) []string {
	rel, err := filepath.Rel(f.base, path)
	if err != nil {
		rel = path
	}
	out := []string{filepath.ToSlash(rel), filepath.Base(path), filepath.ToSlash(path)}
	if filepath.Base(path) == "SKILL.md" {
		dir := filepath.Dir(path)
		drel, err := filepath.Rel(f.base, dir)
		if err != nil {
			drel = dir
		}
		out = append(out, filepath.ToSlash(drel), filepath.Base(dir), filepath.ToSlash(dir))
	}
	return out
}

func (f *resourceFilter) matches(path string, pats []*pattern.Pattern) bool {
	if len(pats) == 0 {
		return false
	}
	for _, name := range f.forms(path) {
		if pattern.MatchAny(pats, name) {
			return true
		}
	}
	return false
}

// matchesExact is pi's exact match of "+path" and "-path": the path relative to base or the
// absolute path (a leading "./" dropped); for a SKILL.md also its folder's. The file's bare
// name does not count.
func (f *resourceFilter) matchesExact(path string, exact []string) bool {
	if len(exact) == 0 {
		return false
	}
	forms := f.forms(path)
	for _, e := range exact {
		e = filepath.ToSlash(f.expand(strings.TrimPrefix(e, "./")))
		for i, name := range forms {
			if i == 1 || i == 4 {
				continue // the bare names
			}
			if e == name {
				return true
			}
		}
	}
	return false
}

// settingsList is the strings of a scope's settings list key ("skills", "prompts", "themes");
// nil when the file or the list is absent or not an array of strings (reported elsewhere).
func (c *Config) settingsList(scope Scope, key string) []string {
	f := c.Layer(Settings, scope)
	if f == nil || f.Root == nil || f.Broken {
		return nil
	}
	n := f.Root.Get(key)
	if n == nil {
		return nil
	}
	v, ok := n.Value().([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range v {
		if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// overrides is the filter a scope's settings put on what a resource folder of that scope gives
// by itself: only the "!", "+" and "-" entries, matched relative to base.
func (c *Config) overrides(scope Scope, key, base string) *resourceFilter {
	_, pats := listPatterns(c.settingsList(scope, key))
	if len(pats) == 0 {
		return nil
	}
	return newResourceFilter(pats, base, c.Home, false)
}

// gated runs discover with c.gate set to f: the resources it finds and f turns off are not
// loaded, and a later folder does not add them again (pi keeps the first decision per path).
func (c *Config) gated(f *resourceFilter, discover func()) {
	old := c.gate
	c.gate = f
	defer func() { c.gate = old }()
	discover()
}
