package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/tui"
)

var tuiCmd = command{
	name:    "tui",
	summary: "interactive view: tool registry per model, toggles, diagnostics, slash menu, sandbox",
	usage:   "tui [--model M] [--agent NAME] [--tools a,b] [--exclude-tools a,b] [--no-builtin-tools] [--no-tools] [--no-color]",
	flags:   selectionFlags,
	run:     runTUI,
}

func runTUI(c *CLI, a *args) int {
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo tui: unexpected argument %q\n", a.pos[0])
		return ExitUsage
	}
	if !c.Terminal {
		fmt.Fprintln(c.Stderr, "pigo tui: needs a terminal (stdin and stdout); for scripts use pigo tools, explain, check, commands or sandbox show")
		return ExitUsage
	}
	if code := c.checkPlaces(a); code != ExitOK {
		return code
	}
	load := c.loadOptions(a)
	if load.Approve == nil && load.AskTrust != nil {
		// Settle the trust question before the full-screen program owns the terminal.
		cfg, err := config.Load(load)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo tui: %v\n", err)
			return ExitInternal
		}
		if cfg.HasProject {
			trusted := cfg.Trusted
			load.Approve = &trusted
		}
	}
	load.AskTrust = nil
	o := tui.Options{Load: load, Color: c.color(a),
		Resolve: config.ResolveOptions{Model: a.str("--model"), Tools: a.csv("--tools"), ExcludeTools: a.csv("--exclude-tools"),
			NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools"), NoMCP: a.has("--no-mcp")}}
	if name := a.str("--agent"); name != "" {
		cfg, code := c.load(a)
		if cfg == nil {
			return code
		}
		if _, code := c.applyAgent(cfg, name, &o.Resolve); code != ExitOK {
			return code
		}
	}
	res, err := tui.Run(o, c.Stdin, c.Stdout)
	for _, l := range res.Edits {
		fmt.Fprintf(c.Stdout, "pigo tui: %s\n", l)
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo tui: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}
