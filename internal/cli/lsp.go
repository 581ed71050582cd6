package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/lsp"
)

var lspCmd = command{
	name:    "lsp",
	summary: "plan or run the language servers lsp.json configures for a file",
	usage:   "lsp plan|diagnostics FILE",
	sub: []*command{
		{name: "plan", summary: "which servers handle FILE, with root, argv, cwd, env and language id", usage: "lsp plan FILE", run: runLSPPlan},
		{name: "diagnostics", summary: "start the planned servers, open FILE and print what they report", usage: "lsp diagnostics FILE", run: runLSPDiagnostics},
	},
}

type lspPlanJSON struct {
	Version int              `json:"version"`
	File    string           `json:"file"`
	Servers []lsp.ServerPlan `json:"servers"`
	Skipped []lsp.Skipped    `json:"skipped"`
}

type lspDiagnosticsJSON struct {
	Version     int              `json:"version"`
	File        string           `json:"file"`
	Diagnostics []lsp.Diagnostic `json:"diagnostics"`
	Failed      []lsp.Skipped    `json:"failed"`
}

// lspPlan loads the configuration and plans FILE (config.LSPPlan). It prints problems itself;
// a nil plan comes with the exit code.
func (c *CLI) lspPlan(a *args, name string) (*lsp.Plan, string, int) {
	if len(a.pos) != 1 {
		fmt.Fprintf(c.Stderr, "pigo %s: expected one FILE\nusage: pigo %s FILE\n", name, name)
		return nil, "", ExitUsage
	}
	file := a.pos[0]
	abs, err := filepath.Abs(file)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return nil, "", ExitInternal
	}
	if st, err := os.Stat(abs); err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %s: %v\n", name, file, config.StatMessage(err))
		return nil, "", ExitFailed
	} else if st.IsDir() {
		fmt.Fprintf(c.Stderr, "pigo %s: %s is a directory, not a file\n", name, file)
		return nil, "", ExitFailed
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return nil, "", code
	}
	plan, err := cfg.LSPPlan(abs, name != "lsp plan", c.Stderr)
	if err != nil {
		return nil, "", c.editFailure(name, err)
	}
	return plan, file, ExitOK
}

func runLSPPlan(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	plan, file, code := c.lspPlan(a, "lsp plan")
	if plan == nil {
		return code
	}
	if format == "json" {
		return c.writeJSON(lspPlanJSON{Version: 1, File: file, Servers: plan.Servers, Skipped: plan.Skipped})
	}
	plan.WriteText(c.Stdout, file)
	return ExitOK
}

func runLSPDiagnostics(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	plan, file, code := c.lspPlan(a, "lsp diagnostics")
	if plan == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ds, failed := plan.Check(ctx, file, c.Stderr, "pigo lsp diagnostics: ", format == "text")
	if format == "json" {
		if ds == nil {
			ds = []lsp.Diagnostic{}
		}
		if code := c.writeJSON(lspDiagnosticsJSON{Version: 1, File: file, Diagnostics: ds, Failed: failed}); code != ExitOK {
			return code
		}
	} else {
		for _, d := range ds {
			fmt.Fprintln(c.Stdout, d.String())
		}
		if len(ds) == 0 && len(failed) == 0 && len(plan.Servers) > 0 {
			fmt.Fprintf(c.Stdout, "%s: no diagnostics\n", file)
		}
	}
	if len(failed) > 0 {
		return ExitFailed
	}
	for _, d := range ds {
		if d.Severity == "error" {
			return ExitFailed
		}
	}
	return ExitOK
}
