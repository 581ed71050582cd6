package config

import (
	"fmt"
	"strings"
)

// GlobalOnly reports whether the first key of a dotted path is read from the global file only
// (D4: defaultProjectTrust and httpProxy in settings.json): a project value would be ignored.
func GlobalOnly(k Kind, path string) bool {
	first := path
	if i := strings.IndexAny(path, ".["); i >= 0 {
		first = path[:i]
	}
	return mergeRule(k, first) == RuleGlobal
}

// Dropped lists the leaves of the global layer that the change removes from the effective
// configuration (before is the configuration the change was computed from): a project value
// that replaces a whole global entry — an array under "replace", an lsp.json server replaced
// by id — drops everything the global entry had. Each is rendered as `path = value (file:line)`.
func (ch *Change) Dropped(before *Config) []string {
	if ch.Scope != Project || ch.Config == nil {
		return nil
	}
	b, err1 := before.Effective(ch.Kind)
	a, err2 := ch.Config.Effective(ch.Kind)
	if err1 != nil || err2 != nil {
		return nil
	}
	key := func(l Leaf) string {
		if l.Value == nil || l.Value.File == nil || l.Value.Node == nil {
			return ""
		}
		return fmt.Sprintf("%s@%d", l.Value.File.Path, l.Value.Node.Start)
	}
	kept := map[string]bool{}
	for _, l := range a.Leaves() {
		kept[key(l)] = true
	}
	var out []string
	for _, l := range b.Leaves() {
		if l.Value == nil || l.Value.File == nil || l.Value.File.Scope != Global || kept[key(l)] {
			continue
		}
		file, _, line, col := where(l.Value)
		out = append(out, fmt.Sprintf("%s = %s (%s:%d:%d)", l.Path, l.Value.JSON(), file, line, col))
	}
	return out
}
