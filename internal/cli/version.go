package cli

import "fmt"

// versionJSON is `pigo version --format json`.
type versionJSON struct {
	Version int    `json:"version"`
	Pigo    string `json:"pigo"`
}

var versionCmd = command{
	name:    "version",
	summary: "print pigo's version",
	usage:   "version [--format text|json]",
	run:     runVersion,
}

func runVersion(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo version: unexpected argument %q\nusage: pigo version [--format text|json]\n", a.pos[0])
		return ExitUsage
	}
	if format == "json" {
		return c.writeJSON(versionJSON{Version: 1, Pigo: Version})
	}
	fmt.Fprintf(c.Stdout, "pigo %s\n", Version)
	return ExitOK
}
