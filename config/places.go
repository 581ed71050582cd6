package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
)

// Places are the places a command line names: -C, --agent-dir, -e and --model (Has* tells
// whether the flag was given, even empty).
type Places struct {
	Dir, AgentDir, Model          string
	HasDir, HasAgentDir, HasModel bool
	Extensions                    []string
	Getenv                        func(string) string
}

// CheckPlaces refuses the places named on the command line that do not exist (-C, --agent-dir,
// -e) and a --model that names nothing: the error is a usage error's text. An agent dir named by
// $PI_CODING_AGENT_DIR that does not exist is a warning in notes (pigo then reads no user
// config); notes come before the error.
func CheckPlaces(p Places) (notes diag.List, err error) {
	dir := func(flag, path string) error {
		st, err := os.Stat(path)
		switch {
		case err != nil && os.IsNotExist(err):
			return fmt.Errorf("%s %s: the directory does not exist", flag, path)
		case err != nil:
			return fmt.Errorf("%s %s: %v", flag, path, StatMessage(err))
		case !st.IsDir():
			return fmt.Errorf("%s %s: not a directory", flag, path)
		}
		return nil
	}
	if p.HasDir {
		if err := dir("-C", p.Dir); err != nil {
			return nil, err
		}
	}
	home := p.Getenv("HOME")
	if p.HasAgentDir {
		if err := dir("--agent-dir", ResolveAgentDir(Options{AgentDir: p.AgentDir}, home)); err != nil {
			return nil, err
		}
	} else if env := p.Getenv("PI_CODING_AGENT_DIR"); env != "" {
		path := ResolveAgentDir(Options{Getenv: p.Getenv}, home)
		if _, err := os.Stat(path); err != nil && os.IsNotExist(err) {
			notes.Add(diag.FileSpan(diag.NewSource(path, nil)), diag.Warning, "no-agent-dir", "",
				"the agent dir named by $PI_CODING_AGENT_DIR does not exist: no user config is read")
		}
	}
	for _, e := range p.Extensions {
		if IsPackageSource(e) {
			continue // npm:, git:, a git URL or a package folder (pi's -e): resolved as a package
		}
		st, err := os.Stat(e)
		switch {
		case err != nil && os.IsNotExist(err):
			return notes, fmt.Errorf("-e %s: the file does not exist", e)
		case err == nil && st.IsDir() && CodeExtension(e) == "":
			return notes, fmt.Errorf("-e %s: is a directory, not an extension file or a pi package", e)
		}
	}
	if m := p.Model; p.HasModel {
		if pr, id, ok := strings.Cut(m, "/"); strings.TrimSpace(m) == "" || ok && (strings.TrimSpace(pr) == "" || strings.TrimSpace(id) == "") {
			return notes, fmt.Errorf("--model %q: expected PROVIDER/ID or a model id", m)
		}
	}
	return notes, nil
}
