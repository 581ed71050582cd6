package config

import (
	"fmt"
	"io"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// AddMCPServer is `pigo mcp add`: entry (mcp.Entry) saved as server name in the scope's
// mcp.json, checked first as pi checks one entry (a *Refusal), then what was done on w. An
// edit error is Apply's.
func (c *Config) AddMCPServer(scope Scope, name string, entry []byte, signInHint bool, w io.Writer) error {
	if msg := ValidateMCPEntry(name, entry); msg != "" {
		return &Refusal{msg}
	}
	path := c.Path(MCP, scope)
	replaced := c.MCPDefines(scope, name)
	if _, err := c.Apply(MCP, scope, false, EditOp{Op: OpSet, Path: "mcpServers." + mcp.PathKey(name), Value: entry}); err != nil {
		return err
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(w, "%s %s MCP server %q in %s.\n", verb, scopeWord(scope), name, path)
	if scope == Project && !c.ProjectTrusted() {
		fmt.Fprintf(w, "The project is not trusted, so %s is ignored until you trust it (pigo trust).\n", path)
	}
	hint := ""
	if signInHint {
		hint = ". If it requires sign-in: pigo mcp login " + name
	}
	fmt.Fprintf(w, "Check it with: pigo mcp list%s\n", hint)
	return nil
}

// RemoveMCPServer is `pigo mcp remove`: server name leaves the scope's mcp.json (a *Refusal,
// naming the other file when that one defines it, if this one does not); what was done on w.
func (c *Config) RemoveMCPServer(scope Scope, name string, w io.Writer) error {
	path := c.Path(MCP, scope)
	if !c.MCPDefines(scope, name) {
		msg := fmt.Sprintf("No %s MCP server named %q in %s.", scopeWord(scope), name, path)
		other := Global
		if scope == Global {
			other = Project
		}
		if c.MCPDefines(other, name) {
			hint := "; omit --local"
			if other == Project {
				hint = "; use --local"
			}
			msg += fmt.Sprintf(" It is defined in %s%s.", c.Path(MCP, other), hint)
		}
		return &Refusal{msg}
	}
	if _, err := c.Apply(MCP, scope, false, EditOp{Op: OpUnset, Path: "mcpServers." + mcp.PathKey(name)}); err != nil {
		return err
	}
	fmt.Fprintf(w, "Removed %s MCP server %q from %s.\n", scopeWord(scope), name, path)
	return nil
}

func scopeWord(s Scope) string {
	if s == Project {
		return "project"
	}
	return "global"
}
