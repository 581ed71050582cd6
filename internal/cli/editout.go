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
			DryRun: a.has("--dry-run"), Summary: config.Summarize(ops), Diff: ch.Diff()})
	}
	switch {
	case a.has("--dry-run"):
		fmt.Fprint(c.Stdout, ch.Diff())
	case !ch.Changed():
		fmt.Fprintf(c.Stdout, "%s: unchanged\n", ch.File)
	default:
		fmt.Fprintf(c.Stdout, "%s: %s\n", ch.File, config.Summarize(ops))
	}
	return ExitOK
}

// globalOnlyScope sends an edit of a key that is read from the global file only
// (defaultProjectTrust, httpProxy) to the global file when the scope was not given, and
// refuses it with the reason when --scope project asks for the project file.
func (c *CLI) globalOnlyScope(cmd string, a *args, k config.Kind, s config.Scope, ops []config.EditOp) (config.Scope, bool) {
	if s != config.Project {
		return s, true
	}
	for _, o := range ops {
		if !config.GlobalOnly(k, o.Path) {
			continue
		}
		if a.str("--scope") == "project" {
			fmt.Fprintf(c.Stderr, "pigo %s: %s is read from the global %s only (a project cannot decide it); a project value would be ignored: nothing was written\n",
				cmd, o.Path, config.FileName(k))
			return s, false
		}
		fmt.Fprintf(c.Stderr, "pigo %s: note: %s is read from the global %s only: writing it there\n", cmd, o.Path, config.FileName(k))
		return config.Global, true
	}
	return s, true
}

// warnDropped says which global values a project edit removes from the effective
// configuration, because the new project entry replaces a whole global one.
func (c *CLI) warnDropped(cmd string, cfg *config.Config, ch *config.Change, ops []config.EditOp) {
	dropped := ch.DroppedBy(cfg, ops)
	if len(dropped) == 0 {
		return
	}
	fmt.Fprintf(c.Stderr, "pigo %s: warning: the new project value replaces a whole global entry; no longer in effect:\n", cmd)
	for _, d := range dropped {
		fmt.Fprintf(c.Stderr, "  %s\n", d)
	}
}
