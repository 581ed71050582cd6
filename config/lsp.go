package config

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/lsp"
)

// LSPConfig returns the effective lsp.json (global and trusted project layers merged by the
// schema's rules) parsed for planning, with defaults applied. The Effective value says which
// layers were merged and which were left out; an error means the merged document is invalid
// (a layer with errors is left out before merging, so this is rare) or the schema failed to load.
func (c *Config) LSPConfig() (*lsp.Config, *Effective, error) {
	e, err := c.Effective(LSP)
	if err != nil {
		return nil, nil, err
	}
	lc, err := lsp.ParseConfig(e.JSON())
	if err != nil {
		return nil, e, err
	}
	lc.ProjectTrusted = c.projectFilesTrusted() // an untrusted project's bins never run (D5)
	return lc, e, nil
}

// projectFilesTrusted says whether files of the project itself may run (LSP bins found in
// node_modules/.bin, .venv/bin, ...). A project without .pi/ counts as trusted for its
// overlay (there is none), but its files were never vouched for: they need the same decision
// an overlay would (--approve, a trust.json entry, defaultProjectTrust "always"); "ask" does not
// ask here and means no.
func (c *Config) projectFilesTrusted() bool {
	if c.HasProject {
		return c.Trusted
	}
	if c.Opts.Approve != nil {
		return *c.Opts.Approve
	}
	if t, _, ok := c.trustEntry(); ok {
		return t
	}
	return c.defaultProjectTrust() == "always"
}

// LayerProblems are the lines `pigo lsp` prints about the lsp.json layers: the warnings of the
// layers that apply (bad durations fall back to defaults, unknown fields are ignored), the
// layers left out and, for a layer left out because it has errors, those errors. broken
// reports such a layer: like the reference, pigo does not start servers from a half-valid
// configuration.
func (e *Effective) LayerProblems() (lines []string, broken bool) {
	add := func(f *File) {
		for _, d := range f.Diags.Sort() {
			if d.Severity != diag.Info {
				lines = append(lines, d.Line())
			}
		}
	}
	for _, f := range e.Layers {
		add(f)
	}
	for _, ig := range e.Ignored {
		if ig.File.Dialect == "" && !ig.File.Legacy && ig.File.Diags.HasErrors() && !strings.Contains(ig.Reason, "trusted") {
			add(ig.File)
			broken = true
		}
		lines = append(lines, fmt.Sprintf("%s: warning: not applied: %s", ig.File.Path, ig.Reason))
	}
	return lines, broken
}
