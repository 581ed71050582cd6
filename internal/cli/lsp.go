package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/lsp"
)

func init() {
	register(&command{
		name:    "lsp",
		summary: "plan or run the language servers lsp.json configures for a file",
		usage:   "lsp plan|diagnostics FILE",
		sub: []*command{
			{name: "plan", summary: "which servers handle FILE, with root, argv, cwd, env and language id", usage: "lsp plan FILE", run: runLSPPlan},
			{name: "diagnostics", summary: "start the planned servers, open FILE and print what they report", usage: "lsp diagnostics FILE", run: runLSPDiagnostics},
		},
	})
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

// lspPlan loads the configuration and plans FILE. It prints problems itself; a nil plan comes
// with the exit code.
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
		fmt.Fprintf(c.Stderr, "pigo %s: %s: %v\n", name, file, statMessage(err))
		return nil, "", ExitFailed
	} else if st.IsDir() {
		fmt.Fprintf(c.Stderr, "pigo %s: %s is a directory, not a file\n", name, file)
		return nil, "", ExitFailed
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return nil, "", code
	}
	lc, eff, err := cfg.LSPConfig()
	if eff != nil && c.lspLayerProblems(eff) {
		fmt.Fprintf(c.Stderr, "pigo %s: lsp.json has errors (see above); no server is started\n", name)
		return nil, "", ExitFailed
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return nil, "", ExitFailed
	}
	cwd, err := filepath.Abs(cfg.ProjectDir)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return nil, "", ExitInternal
	}
	lc.DeferCommands = name == "lsp plan" // planning runs nothing; only starting does
	plan, err := lc.Plan(cwd, abs, lsp.OSEnv())
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo %s: %v\n", name, err)
		return nil, "", ExitFailed
	}
	return plan, file, ExitOK
}

func statMessage(err error) string {
	if os.IsNotExist(err) {
		return "no such file"
	}
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// lspLayerProblems prints, on stderr, the warnings of the lsp.json layers that apply (bad
// durations fall back to defaults, unknown fields are ignored), the layers left out and, for a
// layer left out because it has errors, those errors. It reports whether such a layer exists:
// like the reference, pigo does not start servers from a half-valid configuration.
func (c *CLI) lspLayerProblems(e *config.Effective) (broken bool) {
	print := func(f *config.File) {
		for _, d := range f.Diags.Sort() {
			if d.Severity != diag.Info {
				fmt.Fprintln(c.Stderr, oneLine(d))
			}
		}
	}
	for _, f := range e.Layers {
		print(f)
	}
	for _, ig := range e.Ignored {
		if ig.File.Dialect == "" && !ig.File.Legacy && ig.File.Diags.HasErrors() && !strings.Contains(ig.Reason, "trusted") {
			print(ig.File)
			broken = true
		}
		fmt.Fprintf(c.Stderr, "%s: warning: not applied: %s\n", ig.File.Path, ig.Reason)
	}
	return broken
}

// oneLine renders a diagnostic as `file:line:col: severity: message [code]`.
func oneLine(d diag.Diagnostic) string {
	where := d.File()
	if d.HasPos() {
		l, col := d.Pos()
		where = fmt.Sprintf("%s:%d:%d", where, l, col)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", where, d.Severity, d.Message, d.Code)
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
	w := c.Stdout
	if len(plan.Servers) == 0 {
		fmt.Fprintf(w, "no server handles %s\n", file)
	}
	for i, sp := range plan.Servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s)\n", sp.ID, sp.Kind)
		fmt.Fprintf(w, "  root:        %s\n", sp.Root)
		fmt.Fprintf(w, "  argv:        %s\n", shellJoin(sp.Argv))
		fmt.Fprintf(w, "  cwd:         %s\n", sp.Cwd)
		keys := make([]string, 0, len(sp.Env))
		for k := range sp.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			fmt.Fprintf(w, "  env:         (none added)\n")
		}
		for j, k := range keys {
			label := "env:"
			if j > 0 {
				label = ""
			}
			fmt.Fprintf(w, "  %-12s %s=%s\n", label, k, sp.Env[k])
		}
		fmt.Fprintf(w, "  language id: %s\n", sp.LanguageID)
	}
	if len(plan.Skipped) > 0 {
		fmt.Fprintln(w)
	}
	for _, s := range plan.Skipped {
		mark := "skipped"
		if s.Error {
			mark = "skipped (error)"
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, s.ID, s.Reason)
	}
	return ExitOK
}

// shellJoin quotes the words that need it so that argv reads as a command line.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " ")
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
	failed := []lsp.Skipped{}
	for _, s := range plan.Skipped {
		if s.Error {
			failed = append(failed, s)
			fmt.Fprintf(c.Stderr, "pigo lsp diagnostics: server %q: %s\n", s.ID, s.Reason)
		}
	}
	if len(plan.Servers) == 0 && len(failed) == 0 {
		fmt.Fprintf(c.Stderr, "pigo lsp diagnostics: no server handles %s\n", file)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var ds []lsp.Diagnostic
	if len(plan.Servers) > 0 {
		var progress func(server, what string)
		if format == "text" {
			var mu sync.Mutex
			progress = func(server, what string) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(c.Stderr, "pigo lsp diagnostics: %s: %s\n", server, what)
			}
		}
		var err error
		var notes []string
		ds, notes, err = lsp.DiagnosticsWith(ctx, plan, file, lsp.Options{Progress: progress})
		for _, n := range notes {
			fmt.Fprintf(c.Stderr, "pigo lsp diagnostics: note: %s\n", n)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(c.Stderr, "pigo lsp diagnostics: %s\n", line)
			}
			failed = append(failed, serverFailures(plan, err)...)
		}
	}
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

// serverFailures splits the joined error of lsp.Diagnostics into one entry per server (each
// line names its server as `server "id": ...`).
func serverFailures(plan *lsp.Plan, err error) []lsp.Skipped {
	var out []lsp.Skipped
	for _, line := range strings.Split(err.Error(), "\n") {
		id := ""
		for _, sp := range plan.Servers {
			if strings.HasPrefix(line, fmt.Sprintf("server %q: ", sp.ID)) {
				id = sp.ID
				line = strings.TrimPrefix(line, fmt.Sprintf("server %q: ", sp.ID))
			}
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, lsp.Skipped{ID: id, Reason: line, Error: true})
		}
	}
	return out
}
