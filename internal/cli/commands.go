package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/table"
)

func init() {
	register(&command{
		name:    "commands",
		summary: "the slash commands a session offers, in menu and lookup order",
		usage:   "commands [--model M]",
		run:     runCommands,
	})
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
	w := c.Stdout
	fmt.Fprintln(w, "slash menu (autocomplete order):")
	t := &table.Table{}
	t.Header("COMMAND", "TAG", "ARGUMENTS", "DESCRIPTION")
	names, tags, hints := []string{"COMMAND"}, []string{"TAG"}, []string{"ARGUMENTS"}
	for _, it := range r.Autocomplete {
		names, tags, hints = append(names, "/"+it.Name), append(tags, it.Tag), append(hints, it.ArgumentHint)
	}
	fit := c.fitWidth(names, tags, hints)
	for _, it := range r.Autocomplete {
		t.Append("/"+it.Name, it.Tag, it.ArgumentHint, truncate(it.Description, fit))
	}
	if err := t.Render(w); err != nil {
		return ExitInternal
	}
	fmt.Fprintln(w, "lookup order (what runs when several match: built-in > extension > skill > prompt):")
	for _, e := range r.Commands {
		where := e.File
		if where == "" {
			where = e.Source
		}
		fmt.Fprintf(w, "  /%-24s %-9s %-9s %s\n", e.Invocation, e.Source, e.Scope, where)
	}
	for _, e := range r.Unavailable {
		fmt.Fprintf(w, "  (unavailable) /%s: %s\n", e.Invocation, e.Reason)
	}
	writeWarnings(w, r.Diagnostics)
	return ExitOK
}
