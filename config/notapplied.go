package config

import (
	"fmt"
	"path/filepath"

	"github.com/pigo-agent/pigo/internal/diag"
)

// NotApplied returns one warning for each user file that pigo drops whole or in part because
// of its problems (a syntax error, a wrong top-level type, a schema error, a missing
// frontmatter), naming the file and its first problem (D14). Every command that reads the
// configuration shows this list, so a broken file is never silently replaced by defaults.
// Files of an untrusted project (the trust notice covers them), files in another extension's
// dialect (check reports those as info), sub-agents and the shipped declarations are left out.
func (c *Config) NotApplied() diag.List {
	if c.notApplied != nil {
		return *c.notApplied
	}
	var out diag.List
	for _, f := range c.Files {
		// Sub-agent files are listed with their reason by `pigo agents` (its `skipped`).
		if f.Scope == Builtin || f.Scope == Project && !c.Trusted || f.Kind == Trust || f.Kind == Agent {
			continue
		}
		c.checkFile(nil, f)
		if f.Dialect != "" || f.Legacy {
			continue
		}
		first, ok := firstProblem(f)
		if !ok {
			continue
		}
		name := filepath.Base(f.Path)
		code, msg := "not-applied", fmt.Sprintf("%s is not applied: %s", name, first.Message)
		switch {
		case f.Kind == Settings && f.Applied && !f.Broken:
			code = "settings-errors"
			msg = fmt.Sprintf("%s has errors: the entries in error are ignored and the rest applies; the first: %s", name, first.Message)
		case f.Kind == MCP && f.Applied && !f.Broken:
			code = "mcp-errors"
			msg = fmt.Sprintf("%s has errors: the servers in error are skipped and the others connect; the first: %s", name, first.Message)
		case f.Kind == Extension:
			code, msg = "extension-skipped", fmt.Sprintf("the extension %s is skipped: %s", name, first.Message)
		case f.Kind == Prompt || f.Kind == Skill:
			msg = fmt.Sprintf("the %s %s is skipped: %s", f.Kind, name, first.Message)
		}
		d := out.Add(first.Span, diag.Warning, code, first.Path, msg)
		d.Hint = "run `pigo check` for every problem"
	}
	out = out.Sort()
	c.notApplied = &out
	return out
}

// firstProblem returns the diagnostic that explains why a file is (partly) not applied: its
// first error, or for a file skipped without errors (a skill without a description) its first
// warning.
func firstProblem(f *File) (diag.Diagnostic, bool) {
	sorted := f.Diags.Sort()
	for _, d := range sorted {
		if d.Severity == diag.Error {
			return d, true
		}
	}
	if f.Applied && !f.Broken {
		return diag.Diagnostic{}, false
	}
	for _, d := range sorted {
		if d.Severity == diag.Warning {
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}
