package pkgs

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// ignoreFiles are the files whose rules pi's resource discovery honours.
var ignoreFiles = []string{".gitignore", ".ignore", ".fdignore"}

// ignoreRule is one gitignore line, already prefixed with its folder (pi's prefixIgnorePattern).
type ignoreRule struct {
	negate, dirOnly, anchored bool
	pat                       *pattern.Pattern
}

// ignorer holds the rules met so far in one discovery walk (rules of a folder apply below it).
type ignorer struct {
	rules []ignoreRule
}

// add reads the ignore files of dir (relative to root) and appends their rules.
func (ig *ignorer) add(dir, root string) {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
	}
	for _, name := range ignoreFiles {
		b, err := readSmall(filepath.Join(dir, name), 1<<20)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
			ig.addLine(line, prefix)
		}
	}
}

func (ig *ignorer) addLine(line, prefix string) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return
	}
	p := strings.TrimRight(line, " \t")
	r := ignoreRule{}
	switch {
	case strings.HasPrefix(p, "!"):
		r.negate, p = true, p[1:]
	case strings.HasPrefix(p, `\!`), strings.HasPrefix(p, `\#`):
		p = p[1:]
	}
	p = strings.TrimPrefix(p, "/")
	p = prefix + p
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, strings.TrimSuffix(p, "/")
	}
	if p == "" {
		return
	}
	r.anchored = strings.Contains(p, "/")
	cp, err := pattern.Compile(p)
	if err != nil {
		return // a line that is no pattern ignores nothing
	}
	r.pat = cp
	ig.rules = append(ig.rules, r)
}

// ignored reports whether rel (slash-separated, relative to the walk's root) is ignored; dir
// says it is a folder. The last matching rule decides.
func (ig *ignorer) ignored(rel string, dir bool) bool {
	out := false
	base := path.Base(rel)
	for _, r := range ig.rules {
		if r.dirOnly && !dir {
			continue
		}
		var m bool
		if r.anchored {
			m = r.pat.Match(rel) || strings.HasSuffix(r.pat.String(), "/**") && r.pat.Match(rel+"/")
		} else {
			m = r.pat.Match(base)
		}
		if m {
			out = !r.negate
		}
	}
	return out
}

// readSmall reads a regular file of at most max bytes.
func readSmall(p string, max int64) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > max {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(p)
}
