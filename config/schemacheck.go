package config

import (
	"slices"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/validate"
)

// schemaCheck runs the schema walker on a file. It walks internal/validate's compiled tables:
// a few microseconds for a real settings.json, so no command keeps a cache of results (one
// did while every check evaluated CUE).
func (c *Config) schemaCheck(f *File, root *jsonc.Node, def string, opt validate.Options) diag.List {
	s, err := validate.Load()
	if err != nil {
		var l diag.List
		l.Add(diag.FileSpan(f.Src), diag.Error, "internal", "", err.Error())
		return l
	}
	return slices.Clip(s.Check(f.Src, root, def, opt))
}
