package config

import "github.com/pigo-agent/pigo/internal/diag"

// semantic runs the per-kind checks that the schema cannot express (globs, expressions,
// durations, allowlists, approval rules, LSP server references). Each kind's rules live in
// their own rule_<kind>.go file.
func (c *Config) semantic(f *File) {
	switch f.Kind {
	case Settings:
		c.checkSettingsRules(f)
	case Sandbox:
		c.checkSandboxRules(f)
	case LSP:
		c.checkLSPRules(f)
	case Models:
		c.checkModelsRules(f)
	case Proxy:
		c.checkProxyRules(f)
	case MCP:
		c.MCP() // pi's rules, per entry, with the global file in view (config/mcp.go)
	case Extension, Toolset, Command:
		c.checkDeclarationRules(f)
	}
}

// crossChecks runs the checks that look at several files at once.
func (c *Config) crossChecks() diag.List {
	var out diag.List
	out = append(out, c.checkDuplicateNames()...)
	out = append(out, c.checkAgentNames()...)
	out = append(out, c.checkSandboxWidening()...)
	out = append(out, c.checkResolution()...)
	out = append(out, c.checkModelRefs()...)
	return out
}
