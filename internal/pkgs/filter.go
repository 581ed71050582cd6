package pkgs

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// The resource filters of pi's package manager: a manifest list or a settings filter holds
// plain entries (paths or globs that include), `!glob` (exclude), `+path` (force-include one
// exact path) and `-path` (force-exclude one exact path), applied in that order.

func isOverride(s string) bool {
	return strings.HasPrefix(s, "!") || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-")
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?") }

var globCache sync.Map // pattern text → *pattern.Pattern (nil for a bad one)

// matchGlob is minimatch(name, pat) with pigo's pattern semantics (D8); a malformed pattern
// matches nothing.
func matchGlob(pat, name string) bool {
	v, ok := globCache.Load(pat)
	if !ok {
		p, err := pattern.Compile(pat)
		if err != nil {
			p = nil
		}
		v, _ = globCache.LoadOrStore(pat, p)
	}
	p := v.(*pattern.Pattern)
	return p != nil && p.Match(name)
}

// normalizePattern is pi's normalizePath for a pattern: ~ expanded, a file:// URL made a path,
// slashes.
func (l Layout) normalizePattern(p string) string {
	switch {
	case p == "~":
		p = l.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(l.Home, p[2:])
	case strings.HasPrefix(p, "file://"):
		p = strings.TrimPrefix(p, "file://")
	}
	return filepath.ToSlash(p)
}

// candidates are the names a resource is matched as: its path relative to the base, its file
// name and its absolute path; for a SKILL.md also its folder's (pi's matchesAnyPattern).
func candidates(file, base string) []string {
	rel, err := filepath.Rel(base, file)
	if err != nil {
		rel = file
	}
	out := []string{filepath.ToSlash(rel), filepath.Base(file), filepath.ToSlash(file)}
	if filepath.Base(file) == "SKILL.md" {
		dir := filepath.Dir(file)
		prel, err := filepath.Rel(base, dir)
		if err != nil {
			prel = dir
		}
		out = append(out, filepath.ToSlash(prel), filepath.Base(dir), filepath.ToSlash(dir))
	}
	return out
}

func (l Layout) matchesAny(file string, pats []string, base string) bool {
	c := candidates(file, base)
	for _, p := range pats {
		np := l.normalizePattern(p)
		for _, name := range c {
			if matchGlob(np, name) {
				return true
			}
		}
	}
	return false
}

// exactCandidates are the names an exact (+/-) entry is compared with: the relative and the
// absolute path (for a SKILL.md also its folder's).
func exactCandidates(file, base string) []string {
	c := candidates(file, base)
	out := []string{c[0], c[2]}
	if len(c) > 3 {
		out = append(out, c[3], c[5])
	}
	return out
}

func (l Layout) matchesExact(file string, pats []string, base string) bool {
	if len(pats) == 0 {
		return false
	}
	c := exactCandidates(file, base)
	for _, p := range pats {
		np := l.normalizePattern(strings.TrimPrefix(strings.TrimPrefix(p, "./"), `.\`))
		for _, name := range c {
			if name == np {
				return true
			}
		}
	}
	return false
}

// applyPatterns is pi's applyPatterns: includes (or all), minus `!` matches, plus `+` exact
// paths (from all), minus `-` exact paths. It returns the enabled subset of all, in pi's order
// (all's order, force-included paths after).
func (l Layout) applyPatterns(all []string, pats []string, base string) []string {
	var inc, exc, force, drop []string
	for _, p := range pats {
		switch {
		case strings.HasPrefix(p, "+"):
			force = append(force, p[1:])
		case strings.HasPrefix(p, "-"):
			drop = append(drop, p[1:])
		case strings.HasPrefix(p, "!"):
			exc = append(exc, p[1:])
		default:
			inc = append(inc, p)
		}
	}
	var out []string
	on := map[string]bool{}
	for _, f := range all {
		if (len(inc) == 0 || l.matchesAny(f, inc, base)) && (len(exc) == 0 || !l.matchesAny(f, exc, base)) {
			out = append(out, f)
			on[f] = true
		}
	}
	for _, f := range all {
		if !on[f] && l.matchesExact(f, force, base) {
			out = append(out, f)
			on[f] = true
		}
	}
	if len(drop) > 0 {
		out = slices.DeleteFunc(out, func(f string) bool { return l.matchesExact(f, drop, base) })
	}
	return out
}

// applyDelta is pi's applyAutoloadDisabledPatterns: only the paths an entry names get a state,
// the last entry that names a path deciding it (plain and + enable, ! and - disable).
func (l Layout) applyDelta(all []string, pats []string, base string) ([]string, map[string]bool) {
	state := map[string]bool{}
	var order []string
	for _, p := range pats {
		target := p
		if isOverride(p) {
			target = p[1:]
		}
		enabled := !strings.HasPrefix(p, "-") && !strings.HasPrefix(p, "!")
		exact := strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-")
		for _, f := range all {
			var m bool
			if exact {
				m = l.matchesExact(f, []string{target}, base)
			} else {
				m = l.matchesAny(f, []string{target}, base)
			}
			if m {
				if _, ok := state[f]; !ok {
					order = append(order, f)
				}
				state[f] = enabled
			}
		}
	}
	return order, state
}
