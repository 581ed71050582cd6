package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
)

// editJSON is `pigo config set|unset|add --format json`.
type editJSON struct {
	Version int    `json:"version"`
	File    string `json:"file"`
	Scope   string `json:"scope"`
	Changed bool   `json:"changed"`
	Written bool   `json:"written"`
	DryRun  bool   `json:"dry_run"`
	Summary string `json:"summary"`
	Diff    string `json:"diff"`
}

// editOutput prints the outcome of an edit: the diff for --dry-run, "unchanged", or what was
// written; as one JSON document with --format json.
func (c *CLI) editOutput(a *args, ch *config.Change, s config.Scope, ops []config.EditOp, written bool) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if format == "json" {
		return c.writeJSON(editJSON{Version: 1, File: ch.File, Scope: string(s), Changed: ch.Changed(), Written: written,
			DryRun: a.has("--dry-run"), Summary: summarize(ops), Diff: ch.Diff()})
	}
	switch {
	case a.has("--dry-run"):
		fmt.Fprint(c.Stdout, ch.Diff())
	case !ch.Changed():
		fmt.Fprintf(c.Stdout, "%s: unchanged\n", ch.File)
	default:
		fmt.Fprintf(c.Stdout, "%s: %s\n", ch.File, summarize(ops))
	}
	return ExitOK
}
