package config

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pigo-agent/pigo/internal/lsp"
)

// LSPPlan plans the language servers lsp.json configures for the file abs (`pigo lsp plan` and
// `pigo lsp diagnostics`; run is false when planning only, which starts nothing). The problems
// of lsp.json's layers are printed on notes first. A broken lsp.json or a plan that fails is a
// *Refusal; the rest are I/O failures.
func (c *Config) LSPPlan(abs string, run bool, notes io.Writer) (*lsp.Plan, error) {
	lc, eff, err := c.LSPConfig()
	if eff != nil {
		lines, broken := eff.LayerProblems()
		for _, l := range lines {
			fmt.Fprintln(notes, l)
		}
		if broken {
			return nil, &Refusal{"lsp.json has errors (see above); no server is started"}
		}
	}
	if err != nil {
		return nil, &Refusal{err.Error()}
	}
	cwd, err := filepath.Abs(c.ProjectDir)
	if err != nil {
		return nil, err
	}
	lc.DeferCommands = !run // planning runs nothing; only starting does
	plan, err := lc.Plan(cwd, abs, lsp.OSEnv())
	if err != nil {
		return nil, &Refusal{err.Error()}
	}
	return plan, nil
}

// StatMessage is a stat error as the command line says it: "no such file", else the
// system's reason without the path.
func StatMessage(err error) string {
	if os.IsNotExist(err) {
		return "no such file"
	}
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
