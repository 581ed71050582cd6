package cli

import (
	"github.com/pigo-agent/pigo/internal/engine"
)

var commandsCmd = command{
	name:    "commands",
	summary: "the slash commands a session offers, in menu and lookup order",
	usage:   "commands [--model M]",
	run:     runCommands,
}

type commandsJSON struct {
	Version int `json:"version"`
	*engine.CommandResult
}

func runCommands(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	_, res, code := c.resolve(a)
	if res == nil {
		return code
	}
	r := res.Commands
	if format == "json" {
		return c.writeJSON(commandsJSON{Version: 1, CommandResult: r})
	}
	if err := r.WriteText(c.Stdout, c.fitWidth); err != nil {
		return ExitInternal
	}
	return ExitOK
}
