package config

import "github.com/pigo-agent/pigo/internal/diag"

// checkSettingsRules checks personalExtensions patterns (bad-glob) and conditions (bad-expr).
func (c *Config) checkSettingsRules(f *File) {}

// checkDeclarationRules checks the `when` conditions of declared tools and commands (bad-expr).
func (c *Config) checkDeclarationRules(f *File) {}

// checkDuplicateNames reports agents, prompts and skills that share a name (duplicate-name).
func (c *Config) checkDuplicateNames() diag.List { return nil }

// checkResolution resolves the registry for the session model and reports the engine's
// warnings (unmatched-pattern, no-structured-output, tool-conflict, builtin-override,
// command-conflict).
func (c *Config) checkResolution() diag.List { return nil }
