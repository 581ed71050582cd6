package config

import (
	"fmt"
	"io"

	"github.com/pigo-agent/pigo/internal/diag"
)

// CheckFile is one file `pigo check` read, as its JSON lists it.
type CheckFile struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Scope   string `json:"scope"`
	Applied bool   `json:"applied"`
}

// CheckReport is `pigo check --format json` (cli.md).
type CheckReport struct {
	Version     int                   `json:"version"`
	Files       []CheckFile           `json:"files"`
	Diagnostics []diag.JSONDiagnostic `json:"diagnostics"`
	Errors      int                   `json:"errors"`
	Warnings    int                   `json:"warnings"`
	Infos       int                   `json:"infos"`
}

// CheckReport is the JSON document of list, the diagnostics of checking c.
func (c *Config) CheckReport(list diag.List) CheckReport {
	errs, warns, infos := list.Count()
	out := CheckReport{Version: 1, Files: []CheckFile{}, Diagnostics: diag.ToJSON(list), Errors: errs, Warnings: warns, Infos: infos}
	for _, f := range c.Files {
		out.Files = append(out.Files, CheckFile{Path: f.Path, Kind: string(f.Kind), Scope: string(f.Scope), Applied: f.Applied})
	}
	return out
}

// WriteCheckSummary prints the last lines of `pigo check`'s text: that no user file was found
// (when all is set: no paths were named) and the counts.
func (c *Config) WriteCheckSummary(w io.Writer, list diag.List, all bool) {
	errs, warns, _ := list.Count()
	userFiles := 0
	for _, f := range c.Files {
		if f.Scope != Builtin {
			userFiles++
		}
	}
	if all && userFiles == 0 {
		fmt.Fprintf(w, "no user config found (looked in %s and %s); checked the embedded declarations\n",
			DisplayDir(c.AgentDir), DisplayDir(c.ProjectOverlay()))
	}
	fmt.Fprintf(w, "%s, %s in %s\n", plural(errs, "error"), plural(warns, "warning"), plural(len(c.Files), "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
