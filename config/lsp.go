package config

import (
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
	return lc, e, nil
}
