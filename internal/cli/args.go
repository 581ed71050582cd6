package cli

import (
	"fmt"
	"strings"
)

// flag describes one command-line flag.
type flag struct {
	names []string // "--agent-dir", "-C"
	value bool     // takes a value
	help  string
}

// args is the result of parsing a command line.
type args struct {
	vals map[string][]string // by primary name (first of names), repeated values kept
	pos  []string
	// rest holds the words after a bare "--".
	rest     []string
	dashdash bool
}

func (a *args) has(name string) bool { _, ok := a.vals[name]; return ok }

func (a *args) str(name string) string {
	v := a.vals[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func (a *args) list(name string) []string { return a.vals[name] }

// csv returns a comma-list flag (repeatable) as trimmed, non-empty names; nil when absent.
func (a *args) csv(name string) []string {
	if !a.has(name) {
		return nil
	}
	out := []string{}
	for _, v := range a.vals[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// parse reads argv against the known flags. Flags may come before or after positional words;
// "--" ends flag parsing.
func parse(argv []string, flags []*flag) (*args, error) { return parseMax(argv, flags, 0) }

// parseMax is parse that, when max > 0, takes every word after the max-th positional word as
// rest, as if a "--" preceded it.
func parseMax(argv []string, flags []*flag, max int) (*args, error) {
	byName := map[string]*flag{}
	for _, f := range flags {
		for _, n := range f.names {
			byName[n] = f
		}
	}
	a := &args{vals: map[string][]string{}}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		if w == "--" {
			a.rest = append(a.rest, argv[i+1:]...)
			a.dashdash = true
			break
		}
		if max > 0 && len(a.pos) >= max {
			a.rest = append(a.rest, argv[i:]...)
			a.dashdash = true
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			a.pos = append(a.pos, w)
			continue
		}
		name, val, hasVal := strings.Cut(w, "=")
		f := byName[name]
		if f == nil {
			return nil, usagef("unknown flag %s", name)
		}
		key := f.names[0]
		if !f.value {
			if hasVal {
				return nil, usagef("flag %s takes no value", name)
			}
			a.vals[key] = append(a.vals[key], "true")
			continue
		}
		if !hasVal {
			if i+1 >= len(argv) {
				return nil, usagef("flag %s needs a value", name)
			}
			i++
			val = argv[i]
		}
		a.vals[key] = append(a.vals[key], val)
	}
	return a, nil
}

var globalFlags = []*flag{
	{names: []string{"--agent-dir"}, value: true, help: "global config dir (default $PI_CODING_AGENT_DIR, else ~/.pi/agent)"},
	{names: []string{"-C", "--cwd"}, value: true, help: "project dir; its overlay is DIR/.pi/ (default: current dir)"},
	{names: []string{"--format"}, value: true, help: "output format: text or json (check: also github, sarif)"},
	{names: []string{"--approve"}, help: "trust the project for this run"},
	{names: []string{"--no-approve"}, help: "distrust the project for this run"},
	{names: []string{"-e", "--extension"}, value: true, help: "a declarative extension file, or a pi package for this run (npm:NAME, git:URL, a folder); repeatable, loads first"},
	{names: []string{"--model"}, value: true, help: "the session's model as PROVIDER/ID"},
	{names: []string{"--no-color"}, help: "no colour (also NO_COLOR, or when stdout is not a terminal)"},
	{names: []string{"--offline"}, help: "no automatic network activity: missing packages are not installed at start (also PI_OFFLINE=1)"},
	{names: []string{"-h", "--help"}, help: "show help"},
}
