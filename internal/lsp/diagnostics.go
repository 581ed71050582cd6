package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
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
// still returned.
func Diagnostics(ctx context.Context, plan *Plan, file string) ([]Diagnostic, error) {
	data, err := os.ReadFile(plan.File)
	if err != nil {
		return nil, err
	}
	text := string(data)
	lines := strings.SplitAfter(text, "\n")
	results := make([][]Diagnostic, len(plan.Servers))
	errs := make([]error, len(plan.Servers))
	var wg sync.WaitGroup
	for i := range plan.Servers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sp := &plan.Servers[i]
			ds, err := serverDiagnostics(ctx, sp, plan.File, text, lines, file)
			results[i] = ds
			if err != nil {
				errs[i] = fmt.Errorf("server %q: %w", sp.ID, err)
			}
		}(i)
	}
	wg.Wait()
	var all []Diagnostic
	for _, r := range results {
		all = append(all, r...)
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
	return all, errors.Join(errs...)
}

func serverDiagnostics(ctx context.Context, sp *ServerPlan, path, text string, lines []string, display string) ([]Diagnostic, error) {
	c, err := Start(ctx, sp)
	if err != nil {
		return nil, err
	}
	baseline := 0
	if p := c.latest(path); p != nil {
		baseline = p.seq
	}
	if err := c.Open(path, sp.LanguageID, text); err != nil {
		c.Kill()
		return nil, c.withStderr(fmt.Errorf("textDocument/didOpen: %w", err))
	}
	raw, _, werr := c.WaitDiagnostics(ctx, path, baseline)
	var cerr error
	if werr == nil {
		cerr = c.Close()
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
	if werr != nil {
		return out, werr
	}
	return out, cerr
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
