package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gobwas/glob"
)

// globCompiler gives minimatch's default semantics: `*` and `?` stay within
// one path segment, `**` spans segments and `**/x` also matches a bare `x`.
var globCompiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// includeSet is a compiled `include` list.
type includeSet struct {
	pos, neg []*glob.Pattern
}

// compileInclude splits patterns into positives and `!` negatives and
// compiles them; no positive means every file. A pattern starting with `#`
// is a comment (as in minimatch) and matches nothing.
func compileInclude(patterns []string) (*includeSet, error) {
	s := &includeSet{}
	for i, p := range patterns {
		neg := false
		body := p
		if strings.HasPrefix(p, "!") {
			neg, body = true, p[1:]
		}
		if strings.HasPrefix(body, "#") {
			continue
		}
		g, err := globCompiler.Compile(body)
		if err != nil {
			return nil, fmt.Errorf("include[%d]: bad pattern %q: %v", i, p, err)
		}
		if neg {
			s.neg = append(s.neg, g)
		} else {
			s.pos = append(s.pos, g)
		}
	}
	if len(s.pos) == 0 {
		// Only `**`, which matches every candidate: keep it implicit.
		s.pos = nil
	}
	return s, nil
}

// match reports whether some candidate matches a positive pattern (or there
// are none) and no candidate matches a negative one.
func (s *includeSet) match(candidates []string) bool {
	if len(candidates) == 0 {
		return false
	}
	hit := len(s.pos) == 0
	for _, c := range candidates {
		for _, g := range s.pos {
			if !hit && g.Match(c) {
				hit = true
			}
		}
		for _, g := range s.neg {
			if g.Match(c) {
				return false
			}
		}
	}
	return hit
}

// includeCandidates returns the file path relative to root and to cwd with
// `/` separators, dropping those that leave their base (start with `..`).
func includeCandidates(file, root, cwd string) []string {
	var out []string
	for _, base := range []string{root, cwd} {
		rel, err := filepath.Rel(base, file)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		if len(out) == 0 || out[0] != rel {
			out = append(out, rel)
		}
	}
	return out
}
