package config

import "github.com/pigo-agent/pigo/internal/diag"

// checkSandboxRules checks sandbox.json values the schema cannot: allowlist entries
// (bad-allowlist) and approval rule patterns (bad-approval-rule).
func (c *Config) checkSandboxRules(f *File) {}

// checkSandboxWidening warns when a trusted project loosens the global sandbox
// (sandbox-widened).
func (c *Config) checkSandboxWidening() diag.List { return nil }
