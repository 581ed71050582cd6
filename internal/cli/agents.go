package cli

import (
	"fmt"
)

var agentsCmd = command{
	name:    "agents",
	summary: "list the sub-agents (agents/*.md) with their tools, model and sandbox",
	usage:   "agents",
	run:     runAgents,
}

func runAgents(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo agents: unexpected argument %q\nusage: pigo agents\n", a.pos[0])
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	out := cfg.AgentsReport()
	if format == "json" {
		return c.writeJSON(out)
	}
	if err := out.WriteText(c.Stdout); err != nil {
		fmt.Fprintf(c.Stderr, "pigo agents: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}
