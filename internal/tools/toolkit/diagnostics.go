package toolkit

import (
	"context"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lsp"
)

// diagnosticsPerFile is how many diagnostics of one file are listed.
const diagnosticsPerFile = 5

// diagnosticsHeader introduces the block after a tool's success text.
const diagnosticsHeader = "LSP diagnostics detected in this file"

// AppendDiagnostics appends a diagnostics block to a success text; a clean
// file (block "") leaves the text as it is.
func AppendDiagnostics(text, block string) string {
	if block == "" {
		return text
	}
	return text + "\n\n" + diagnosticsHeader + "\n" + block
}

// DiagnosticsBlock renders the diagnostics of file (absolute path) as
// `<diagnostics file="...">` with one `<SEV> [<line>:<col>] <message>`
// line each, errors before warnings, at most five, then
// `... and <k> errors, <m> warnings` for the rest; "" when there is no
// error or warning. Positions are the LSP ones, 1-based (UTF-16 columns).
func DiagnosticsBlock(file string, ds []LSPDiagnostic) string {
	var errs, warns []LSPDiagnostic
	for _, d := range ds {
		switch d.Severity {
		case 0, 1: // unset is an error, as the seed treats it
			errs = append(errs, d)
		case 2:
			warns = append(warns, d)
		}
	}
	relevant := append(errs, warns...)
	if len(relevant) == 0 {
		return ""
	}
	shown := relevant[:min(len(relevant), diagnosticsPerFile)]
	var b strings.Builder
	b.WriteString(`<diagnostics file="` + file + `">` + "\n")
	for i, d := range shown {
		if i > 0 {
			b.WriteByte('\n')
		}
		sev := "ERROR"
		if d.Severity == 2 {
			sev = "WARN"
		}
		b.WriteString(sev + " [" + strconv.Itoa(d.Line+1) + ":" + strconv.Itoa(d.Character+1) + "] " + d.Message)
	}
	if hidden := relevant[len(shown):]; len(hidden) > 0 {
		he := 0
		for _, d := range hidden {
			if d.Severity != 2 {
				he++
			}
		}
		var parts []string
		if he > 0 {
			parts = append(parts, Plural(he, "error"))
		}
		if hw := len(hidden) - he; hw > 0 {
			parts = append(parts, Plural(hw, "warning"))
		}
		b.WriteString("\n... and " + strings.Join(parts, ", "))
	}
	b.WriteString("\n</diagnostics>")
	return b.String()
}

// LSPDiagnostic is one published diagnostic in LSP terms: 0-based line and
// character (as the server sent them), severity 1 error … 4 hint, 0 unset.
type LSPDiagnostic = lsp.PublishedDiagnostic

// LSP is the session's language-server hook (toolrun.LSP): the file tools
// get their diagnostics block from it, and the LSP tools their servers.
type LSP struct {
	M *lsp.Manager
}

// NewLSP starts nothing yet: servers start on the first file they handle.
func NewLSP(cfg *lsp.Config, cwd string, env lsp.Env) *LSP {
	return &LSP{M: lsp.NewManager(cfg, cwd, env)}
}

// Diagnostics syncs path's content to its servers and returns the block to
// append after a read or an edit ("" when clean, when no server handles
// the file, or when the servers fail: a tool never fails for its LSP).
func (l *LSP) Diagnostics(ctx context.Context, path string, content []byte) string {
	if l == nil || l.M == nil {
		return ""
	}
	ds, _ := l.M.DocumentDiagnostics(ctx, path, content)
	return DiagnosticsBlock(path, ds)
}

// Close shuts the servers down.
func (l *LSP) Close() {
	if l != nil && l.M != nil {
		l.M.Close()
	}
}
