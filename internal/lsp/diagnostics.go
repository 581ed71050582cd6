package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// Diagnostic is one problem a server reported, with 1-based line and
// column; columns count bytes, as everywhere in pigo.
type Diagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	// Severity is "error", "warning", "info" or "hint".
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	// Server is the id of the server that reported it.
	Server string `json:"server"`
}

// String renders d as `file:line:col: severity: message [server]`.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", d.File, d.Line, d.Column, d.Severity, d.Message, d.Server)
}

func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error" // 1, or unset: the client decides, and unknown is safest as an error
}

// Diagnostics starts every server of plan, opens file (displayed as given,
// read from plan.File) and returns what they publish, sorted by line,
// column, server and message. Servers run concurrently; each is shut down
// (or killed) before Diagnostics returns. Servers that fail contribute an
// error (joined, each naming its server) while the others' diagnostics are
// still returned. A server that published and then is slow to shut down has
// not failed: it is killed (see DiagnosticsWith for the note).
func Diagnostics(ctx context.Context, plan *Plan, file string) ([]Diagnostic, error) {
	ds, _, err := DiagnosticsWith(ctx, plan, file, Options{})
	return ds, err
}

// MaxFileSize is the largest file DiagnosticsWith opens in the servers.
const MaxFileSize = 32 << 20

// Options tune DiagnosticsWith.
type Options struct {
	// Progress, when set, is told what each server is doing: a cold server can take seconds
	// to start and to publish, and a person waiting should see why. It may be called from
	// several goroutines at once.
	Progress func(server, what string)
}

// DiagnosticsWith is Diagnostics with progress reports; notes say what went wrong without
// failing the result (a server killed after a slow shutdown).
func DiagnosticsWith(ctx context.Context, plan *Plan, file string, o Options) (ds []Diagnostic, notes []string, err error) {
	// The file is opened (a FIFO or a device would block or never end), bounded, then sent.
	data, err := safefile.Read(plan.File, safefile.Options{Max: MaxFileSize})
	if err != nil {
		return nil, nil, err
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string, string) {}
	}
	text := string(data)
	lines := strings.SplitAfter(text, "\n")
	results := make([][]Diagnostic, len(plan.Servers))
	errs := make([]error, len(plan.Servers))
	notesOf := make([]string, len(plan.Servers))
	var wg sync.WaitGroup
	for i := range plan.Servers {
		wg.Go(func() {
			sp := &plan.Servers[i]
			ds, note, err := serverDiagnostics(ctx, sp, plan.File, text, lines, file, func(what string) { progress(sp.ID, what) })
			results[i], notesOf[i] = ds, note
			if err != nil {
				errs[i] = fmt.Errorf("server %q: %w", sp.ID, err)
			}
		})
	}
	wg.Wait()
	var all []Diagnostic
	for i, r := range results {
		all = append(all, r...)
		if notesOf[i] != "" {
			notes = append(notes, fmt.Sprintf("server %q: %s", plan.Servers[i].ID, notesOf[i]))
		}
	}
	sort.SliceStable(all, func(a, b int) bool {
		x, y := all[a], all[b]
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		if x.Column != y.Column {
			return x.Column < y.Column
		}
		if x.Server != y.Server {
			return x.Server < y.Server
		}
		return x.Message < y.Message
	})
	return all, notes, errors.Join(errs...)
}

func serverDiagnostics(ctx context.Context, sp *ServerPlan, path, text string, lines []string, display string, progress func(string)) ([]Diagnostic, string, error) {
	started := time.Now()
	progress("starting " + strings.Join(sp.Argv, " "))
	c, err := Start(ctx, sp)
	if err != nil {
		return nil, "", err
	}
	progress(fmt.Sprintf("started in %.1fs; waiting for diagnostics", time.Since(started).Seconds()))
	baseline := 0
	if p := c.latest(path); p != nil {
		baseline = p.seq
	}
	if err := c.Open(path, sp.LanguageID, text); err != nil {
		c.Kill()
		return nil, "", c.withStderr(fmt.Errorf("textDocument/didOpen: %w", err))
	}
	raw, _, werr := c.WaitDiagnostics(ctx, path, baseline)
	note := ""
	if werr == nil {
		progress(fmt.Sprintf("done after %.1fs; shutting down", time.Since(started).Seconds()))
		if cerr := c.Close(); cerr != nil {
			// The diagnostics arrived; a server slow to shut down (a cold gopls still loading
			// packages) has been killed, which is not a failure of the command.
			note = cerr.Error()
		}
	} else {
		c.Kill()
	}
	out := make([]Diagnostic, 0, len(raw))
	for _, d := range raw {
		line, col := toByteColumn(lines, d.Range.Start, c.utf8)
		eline, ecol := toByteColumn(lines, d.Range.End, c.utf8)
		out = append(out, Diagnostic{
			File: display, Line: line, Column: col, EndLine: eline, EndColumn: ecol,
			Severity: severityName(d.Severity), Message: d.Message, Source: d.Source,
			Code: strings.Trim(string(d.Code), `"`), Server: sp.ID,
		})
	}
	return out, note, werr
}

// toByteColumn converts a 0-based LSP position (UTF-16 code units unless
// the server agreed to UTF-8) to a 1-based line and byte column. Positions
// past the text are clamped to it.
func toByteColumn(lines []string, p lspPosition, utf8Units bool) (int, int) {
	line := max(p.Line, 0)
	if line >= len(lines) {
		return line + 1, max(p.Character, 0) + 1
	}
	s := strings.TrimRight(lines[line], "\r\n")
	if utf8Units {
		return line + 1, min(max(p.Character, 0), len(s)) + 1
	}
	units := 0
	for i, r := range s {
		if units >= p.Character {
			return line + 1, i + 1
		}
		if r == utf8.RuneError {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
	}
	return line + 1, len(s) + 1
}
