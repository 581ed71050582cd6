package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/pattern"
)

// lspDurations are the duration fields of lsp.json with their defaults (reference §4.2).
var lspDurations = []struct {
	key string
	def string
}{
	{"diagnosticsDebounceMs", "150ms"},
	{"diagnosticsDocumentWaitTimeoutMs", "5000ms"},
	{"diagnosticsSilentWaitTimeoutMs", "1500ms"},
	{"diagnosticsFullWaitTimeoutMs", "10000ms"},
	{"diagnosticsRequestTimeoutMs", "3000ms"},
	{"initializeTimeoutMs", "45000ms"},
}

// checkLSPRules checks lsp.json values the schema cannot: include globs (bad-glob), durations
// (bad-duration), workingDir with rootMarkers (lsp-exclusive), unknown ids in enabled
// (lsp-unknown-server), and the seed's older per-server `enabled` key (legacy-shape). Values of
// the wrong type are left to the schema check.
func (c *Config) checkLSPRules(f *File) {
	root := f.Root
	if root == nil || root.Kind != jsonc.Object {
		return
	}
	for _, d := range lspDurations {
		c.lspDuration(f, root, d.key, d.key, d.def)
	}
	if w := root.Get("watch"); w != nil && w.Kind == jsonc.Object {
		c.lspDuration(f, w, "debounceMs", "watch.debounceMs", "300ms")
		c.lspGlobs(f, w.Get("ignore"), "watch.ignore")
	}
	if s := root.Get("servers"); s != nil && s.Kind == jsonc.Object {
		for _, m := range s.Members {
			if m.Value.Kind != jsonc.Object {
				continue
			}
			c.lspServer(f, m.Key, m.Value)
		}
	}
	if en := root.Get("enabled"); en != nil && en.Kind == jsonc.Array {
		available := c.lspServerIDs(f)
		for i, e := range en.Elems {
			if e.Kind != jsonc.String {
				continue
			}
			if err := lsp.CheckEnabled([]string{e.Str}, available); err != nil {
				f.Diags.Add(diag.At(f.Src, e.Start, e.End), diag.Error, "lsp-unknown-server", fmt.Sprintf("enabled[%d]", i), err.Error())
			}
		}
	}
}

// lspDuration reports a duration string that does not parse: a warning, since the default is
// used at run time.
func (c *Config) lspDuration(f *File, obj *jsonc.Node, key, path, def string) {
	n := obj.Get(key)
	if n == nil || n.Kind != jsonc.String {
		return
	}
	if err := lsp.ValidateDuration(n.Str); err != nil {
		f.Diags.Add(diag.At(f.Src, n.Start, n.End), diag.Warning, "bad-duration", path,
			fmt.Sprintf("%s: %v; the default (%s) is used", path, err, def))
	}
}

// lspServer checks one entry of servers.
func (c *Config) lspServer(f *File, id string, s *jsonc.Node) {
	prefix := "servers." + lspPathKey(id)
	c.lspGlobs(f, s.Get("include"), prefix+".include")
	wd, rm := s.Member("workingDir"), s.Member("rootMarkers")
	if wd != nil && rm != nil {
		second, path := wd, prefix+".workingDir"
		if rm.KeyStart > wd.KeyStart {
			second, path = rm, prefix+".rootMarkers"
		}
		err := lsp.CheckExclusive(id, true, true)
		e := f.Diags.Add(diag.At(f.Src, second.KeyStart, second.KeyEnd), diag.Error, "lsp-exclusive", path, err.Error())
		e.Hint = "keep rootMarkers to find the root per file, or workingDir for a fixed root"
	}
	if m := s.Member("enabled"); m != nil {
		c.lspLegacyEnabled(f, id, prefix, m)
	}
}

// lspLegacyEnabled turns the schema's unknown-field warning on a per-server `enabled` (the
// seed's older form, ignored by the current loader) into a legacy-shape warning that says what
// to write instead.
func (c *Config) lspLegacyEnabled(f *File, id, prefix string, m *jsonc.Member) {
	msg := fmt.Sprintf("servers.%s.enabled is the seed's older per-server switch: it is ignored", lspPathKey(id))
	hint := fmt.Sprintf(`list the id in the top-level "enabled" or "disabled" instead, e.g. "disabled": [%q]`, id)
	if m.Value.Kind == jsonc.Bool && m.Value.Bool {
		hint = fmt.Sprintf(`remove it (servers are enabled unless listed in "disabled"), or list %q in the top-level "enabled"`, id)
	}
	for i := range f.Diags {
		d := &f.Diags[i]
		if d.Code == "unknown-field" && d.Start == m.KeyStart {
			d.Severity, d.Code, d.Message, d.Hint, d.Path = diag.Warning, "legacy-shape", msg, hint, prefix+".enabled"
			return
		}
	}
	w := f.Diags.Add(diag.At(f.Src, m.KeyStart, m.KeyEnd), diag.Warning, "legacy-shape", prefix+".enabled", msg)
	w.Hint = hint
}

// lspGlobs compiles each string of a glob list and reports a malformed one at the offending
// byte inside the string.
func (c *Config) lspGlobs(f *File, list *jsonc.Node, path string) {
	if list == nil || list.Kind != jsonc.Array {
		return
	}
	for i, e := range list.Elems {
		if e.Kind != jsonc.String {
			continue
		}
		_, err := pattern.Compile(e.Str)
		if err == nil {
			continue
		}
		start, end := e.Start, e.End
		msg := err.Error()
		var pe *pattern.Error
		if errors.As(err, &pe) {
			off := min(max(pe.Offset, 0), len(e.Str))
			start = jsonc.StringOffset(f.Src.Text, e, utf8.RuneCountInString(e.Str[:off]))
			end = start + 1
			msg = fmt.Sprintf("invalid glob %q: %s", e.Str, pe.Reason)
		}
		f.Diags.Add(diag.At(f.Src, start, end), diag.Error, "bad-glob", fmt.Sprintf("%s[%d]", path, i), msg)
	}
}

// lspServerIDs returns the server ids that the merged lsp.json would define when f is applied:
// f's own, the global layer's, and the project layer's when it applies (trusted, or f itself is
// the project layer). Files in a foreign dialect or under a legacy name define none.
func (c *Config) lspServerIDs(f *File) []string {
	seen := map[string]bool{}
	add := func(g *File) {
		if g.Root == nil || g.Root.Kind != jsonc.Object || g.Legacy || detectDialect(LSP, g.Root) != nil {
			return
		}
		if s := g.Root.Get("servers"); s != nil && s.Kind == jsonc.Object {
			for _, m := range s.Members {
				seen[m.Key] = true
			}
		}
	}
	add(f)
	for _, g := range c.FilesOf(LSP) {
		if g == f || (g.Scope != Global && g.Scope != Project) {
			continue
		}
		if g.Scope == Project && !c.Trusted && f.Scope != Project {
			continue
		}
		add(g)
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// pathKey quotes a key that cannot appear bare in a dotted path.
func lspPathKey(k string) string {
	if k == "" || strings.ContainsAny(k, ".[]\" ") {
		return fmt.Sprintf("%q", k)
	}
	return k
}
