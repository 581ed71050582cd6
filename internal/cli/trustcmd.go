package cli

import (
	"fmt"
	"os"

	"github.com/pigo-agent/pigo/config"
)

var trustCmd = command{
	name:    "trust",
	summary: "trust a project folder (or distrust it) in trust.json, as pi's /trust does",
	usage:   "trust [--always|--once|--never] [DIR]",
	flags: []*flag{
		{names: []string{"--always"}, help: "trust DIR from now on (the default)"},
		{names: []string{"--once"}, help: "remove DIR's own saved decision (pi's null): trust is decided per run again"},
		{names: []string{"--never"}, help: "never trust DIR"},
	},
	run: runTrust,
}

// runTrust writes the trust decision for DIR (default: -C, else the current directory) into
// the agent dir's trust.json: its real path → true (--always), false (--never), or no entry
// (--once, pi's null).
func runTrust(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	n := 0
	for _, f := range []string{"--always", "--once", "--never"} {
		if a.has(f) {
			n++
		}
	}
	if n > 1 || len(a.pos) > 1 {
		fmt.Fprintf(c.Stderr, "pigo trust: give at most one of --always, --once, --never and one DIR\nusage: pigo trust [--always|--once|--never] [DIR]\n")
		return ExitUsage
	}
	if code := c.checkPlaces(a); code != ExitOK {
		return code
	}
	dir := a.str("-C")
	if len(a.pos) == 1 {
		dir = a.pos[0]
	}
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(c.Stderr, "pigo trust: %s: the directory does not exist\n", dir)
		return ExitUsage
	}
	agentDir := config.ResolveAgentDir(config.Options{AgentDir: a.str("--agent-dir"), Getenv: c.getenv}, c.getenv("HOME"))
	decision := "always"
	if a.has("--never") {
		decision = "never"
	} else if a.has("--once") {
		decision = "once"
	}
	r, err := config.TrustFolder(agentDir, dir, decision)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo trust: %v\n", err)
		return ExitInternal
	}
	if format == "json" {
		return c.writeJSON(r)
	}
	r.WriteText(c.Stdout)
	return ExitOK
}
