package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// fileEdit is one file of a rename, computed in memory before anything is
// written.
type fileEdit struct {
	path     string
	old, new []byte
	changes  int
}

// lineOffset converts a 0-based position (UTF-16 units, or bytes for a
// UTF-8 server) into a byte offset of text; a position past its line is
// the server's mistake and an error, never clamped.
func lineOffset(text string, starts []int, line, char int, utf8Units bool, path string) (int, error) {
	if line < 0 || line >= len(starts) {
		return 0, fmt.Errorf("lsp-rename: edit position out of range in %s (line %d)", path, line+1)
	}
	end := len(text)
	if line+1 < len(starts) {
		end = starts[line+1] - 1
	}
	lt := strings.TrimSuffix(text[starts[line]:end], "\r")
	bad := fmt.Errorf("lsp-rename: edit position out of range in %s (character %d on line %d)", path, char+1, line+1)
	if char < 0 {
		return 0, bad
	}
	if utf8Units {
		if char > len(lt) {
			return 0, bad
		}
		return starts[line] + char, nil
	}
	units := 0
	for i, r := range lt {
		if units == char {
			return starts[line] + i, nil
		}
		if r == utf8.RuneError {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
	}
	if units == char {
		return starts[line] + len(lt), nil
	}
	return 0, bad
}

// applyTextEdits applies a file's edits, last first.
func applyTextEdits(path, text string, edits []lsp.TextEdit, utf8Units bool) (string, error) {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		from, err := lineOffset(text, starts, e.StartLine, e.StartChar, utf8Units, path)
		if err != nil {
			return "", err
		}
		to, err := lineOffset(text, starts, e.EndLine, e.EndChar, utf8Units, path)
		if err != nil {
			return "", err
		}
		if to < from {
			return "", fmt.Errorf("lsp-rename: invalid edit range in %s (end before start)", path)
		}
		spans = append(spans, span{from, to, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from > spans[j].from })
	for _, s := range spans {
		text = text[:s.from] + s.text + text[s.to:]
	}
	return text, nil
}

// canonicalEdit is a stable string of a rename's edits, to tell two
// occurrences of one symbol (the same edits) from different symbols.
func canonicalEdit(edits map[string][]lsp.TextEdit) string {
	b, _ := json.Marshal(edits) // map keys are sorted
	return string(b)
}

func lspRename(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a symbolArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	l, err := lspOf(s)
	if err != nil {
		return toolrun.Result{}, err
	}
	path, text, err := readSymbolFile(s.Cwd, a.FilePath)
	if err != nil {
		return toolrun.Result{}, err
	}
	var char *int
	if a.Character != nil {
		c := *a.Character - 1
		char = &c
	}
	cands, err := SymbolCandidates(text, a.Line-1, a.Symbol, char)
	if err != nil {
		return toolrun.Result{}, err
	}
	if len(cands) == 0 {
		return toolrun.Result{}, fmt.Errorf("Symbol %q not found on line %d of %s. Read the file again and locate the symbol.", a.Symbol, a.Line, path)
	}
	srv, err := l.M.LanguageServer(ctx, path)
	if err != nil {
		return toolrun.Result{}, err
	}
	type success struct {
		placeholder string
		edits       map[string][]lsp.TextEdit
	}
	var ps []probed
	results := map[string]success{}
	var notPossible []string
	for _, c := range cands {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(toolkit.ErrAborted)
		}
		ph, edits, err := srv.Rename(ctx, path, c.line, serverCol(srv, c), a.NewName)
		if errors.Is(err, lsp.ErrNotRenameable) {
			notPossible = append(notPossible, fmt.Sprintf("%s: symbol at line %d, column %d of %s is not renameable", srv.ID, c.line+1, c.Char+1, path))
			continue
		}
		if err != nil {
			return toolrun.Result{}, err
		}
		key := canonicalEdit(edits)
		results[key] = success{ph, edits}
		ps = append(ps, probed{text: key, cand: c, renameID: ph})
	}
	if len(ps) == 0 {
		if len(notPossible) > 0 {
			return toolrun.Result{}, errors.New(strings.Join(notPossible, "; "))
		}
		return toolrun.Result{}, fmt.Errorf("no renameable symbol %q on line %d of %s", a.Symbol, a.Line, path)
	}
	groups := group(ps, func(p probed) string { return p.text })
	if len(groups) > 1 {
		return toolrun.Result{}, ambiguity(fmt.Sprintf("Ambiguous rename target on line %d of %s: several distinct symbols share the name %q. Retry with 'character' (1-based) to pick one:", a.Line, path, a.Symbol), groups, true)
	}
	res := results[groups[0][0].text]

	// Every file is prepared (read under its lock, edited in memory, guarded) before any is
	// written, so a refusal or a bad edit leaves every file as it was.
	var paths []string
	for p := range res.edits {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return toolrun.Result{}, errors.New("LSP rename returned no edits")
	}
	writes := make([]toolrun.FileWrite, len(paths))
	for i, p := range paths {
		p := p
		writes[i] = toolrun.FileWrite{Tool: "lsp-rename", Path: p, Reads: s.FileIO, NoMkdir: true,
			ReadError: func(err error) error { return toolkit.FsErrorAt(err, "open", p) },
			Update: func(old []byte, exists bool) ([]byte, error) {
				if !exists {
					return nil, toolkit.NodeError(syscall.ENOENT, "open", p)
				}
				nt, err := applyTextEdits(p, string(old), res.edits[p], srv.UTF8)
				return []byte(nt), err
			}}
	}
	pending, err := s.PrepareAll(ctx, writes)
	if err != nil {
		return toolrun.Result{}, toolkit.FsError(err)
	}
	var files []fileEdit
	reads := map[string]toolrun.Snapshot{}
	var werr error
	for i, pw := range pending {
		if werr != nil {
			pw.Release()
			continue
		}
		w, err := pw.Commit(ctx)
		if err != nil {
			werr = toolkit.FsError(err)
			continue
		}
		files = append(files, fileEdit{w.Real, w.Old, w.New, len(res.edits[paths[i]])})
		for k, v := range w.Reads {
			reads[k] = v
		}
	}
	if werr != nil {
		return toolrun.Result{}, werr
	}
	var diag strings.Builder
	for _, f := range files {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(toolkit.ErrAborted)
		}
		if block := l.Diagnostics(ctx, f.path, f.new); block != "" {
			diag.WriteString(block + "\n")
		}
	}
	renamed := "to '" + a.NewName + "'"
	if res.placeholder != "" && res.placeholder != a.NewName {
		renamed = "'" + res.placeholder + "' -> '" + a.NewName + "'"
	}
	text = fmt.Sprintf("Renamed %s across %d file(s).", renamed, len(files))
	if diag.Len() > 0 {
		text += "\n\nLSP diagnostics detected in renamed files:\n" + strings.TrimRightFunc(diag.String(), toolkit.JsSpace)
	}
	var details any
	if s.FileIO != "" {
		details = toolkit.ReadsDetails{Reads: reads}
	}
	return toolrun.TextResult(text, details), nil
}
