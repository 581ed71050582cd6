package lsp

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// WriteText prints the plan for file as `pigo lsp plan` does: each server with its root,
// argv, cwd, added environment and language id, then the servers skipped.
func (p *Plan) WriteText(w io.Writer, file string) {
	if len(p.Servers) == 0 {
		fmt.Fprintf(w, "no server handles %s\n", file)
	}
	for i, sp := range p.Servers {
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
	if len(p.Skipped) > 0 {
		fmt.Fprintln(w)
	}
	for _, s := range p.Skipped {
		mark := "skipped"
		if s.Error {
			mark = "skipped (error)"
		}
		fmt.Fprintf(w, "%s %s: %s\n", mark, s.ID, s.Reason)
	}
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

// Failures splits the joined error of DiagnosticsWith into one entry per server (each line
// names its server as `server "id": ...`).
func (p *Plan) Failures(err error) []Skipped {
	var out []Skipped
	for _, line := range strings.Split(err.Error(), "\n") {
		id := ""
		for _, sp := range p.Servers {
			if strings.HasPrefix(line, fmt.Sprintf("server %q: ", sp.ID)) {
				id = sp.ID
				line = strings.TrimPrefix(line, fmt.Sprintf("server %q: ", sp.ID))
			}
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, Skipped{ID: id, Reason: line, Error: true})
		}
	}
	return out
}

// Check is `pigo lsp diagnostics FILE` over p: the servers start, open file and report; the
// servers that failed (in the plan or while running) come back in failed. What happens goes to
// log, each line after prefix: the failed servers, "no server handles", the servers' progress
// when progress is set, notes and errors.
func (p *Plan) Check(ctx context.Context, file string, log io.Writer, prefix string, progress bool) (ds []Diagnostic, failed []Skipped) {
	failed = []Skipped{}
	for _, s := range p.Skipped {
		if s.Error {
			failed = append(failed, s)
			fmt.Fprintf(log, "%sserver %q: %s\n", prefix, s.ID, s.Reason)
		}
	}
	if len(p.Servers) == 0 && len(failed) == 0 {
		fmt.Fprintf(log, "%sno server handles %s\n", prefix, file)
	}
	if len(p.Servers) == 0 {
		return nil, failed
	}
	var o Options
	if progress {
		var mu sync.Mutex
		o.Progress = func(server, what string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(log, "%s%s: %s\n", prefix, server, what)
		}
	}
	ds, notes, err := DiagnosticsWith(ctx, p, file, o)
	for _, n := range notes {
		fmt.Fprintf(log, "%snote: %s\n", prefix, n)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(log, "%s%s\n", prefix, line)
		}
		failed = append(failed, p.Failures(err)...)
	}
	return ds, failed
}
