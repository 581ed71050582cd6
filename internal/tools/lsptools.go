package tools

// The LSP tools (lsp-rename lsp-inspect lsp-find-definition
// lsp-find-reference), shared by both file toolsets, as the seed's
// src/lib/lsp/{rename-tool,inspect-tool,rename}.ts: a symbol is found by
// name on a line (any occurrence), every occurrence of the name on that
// line is probed, and results that differ mean several symbols share the
// name, which the model resolves with `character`.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

func init() {
	Register("lsp", "lsp-find-definition", toolrun.Impl{Execute: lspFindDefinition})
	Register("lsp", "lsp-find-reference", toolrun.Impl{Execute: lspFindReference})
	Register("lsp", "lsp-inspect", toolrun.Impl{Execute: lspInspect})
	Register("lsp", "lsp-rename", toolrun.Impl{Execute: lspRename})
}

const (
	refsPerFile  = 10
	refsFiles    = 30
	snippetChars = 200
)

// symbolArgs are the parameters every LSP tool shares.
type symbolArgs struct {
	FilePath  string `json:"file_path"`
	Line      int    `json:"line"`
	Symbol    string `json:"symbol"`
	Character *int   `json:"character"`
	NewName   string `json:"new_name"`
}

// candidate is an occurrence of the symbol: 0-based line, and the column
// in UTF-16 units (what the tool reports) and in bytes.
type candidate struct {
	line, char, byteCol int
}

var wordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}_$]+`) })

// lineText returns line (0-based) of text without its terminator, and
// whether it exists.
func lineText(text string, line int) (string, bool) {
	if line < 0 {
		return "", false
	}
	for i := 0; i < line; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return "", false
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r"), true
}

// symbolCandidates lists the occurrences of symbol as a whole word on line
// (0-based). With character (0-based UTF-16), that column must fall inside
// the word symbol, and it is the only candidate.
func symbolCandidates(text string, line int, symbol string, character *int) ([]candidate, error) {
	lt, ok := lineText(text, line)
	if !ok {
		return nil, nil
	}
	var words []candidate
	var names []string
	for _, m := range wordRE().FindAllStringIndex(lt, -1) {
		words = append(words, candidate{line, utf16Len(lt[:m[0]]), m[0]})
		names = append(names, lt[m[0]:m[1]])
	}
	if character != nil {
		c := *character
		for i, w := range words {
			if c >= w.char && c < w.char+utf16Len(names[i]) {
				if names[i] == symbol {
					return []candidate{w}, nil
				}
				return nil, fmt.Errorf("character %d on line %d does not point at symbol '%s' (points at '%s')", c+1, line+1, symbol, names[i])
			}
		}
		return nil, fmt.Errorf("character %d on line %d does not point at symbol '%s'", c+1, line+1, symbol)
	}
	var out []candidate
	for i, w := range words {
		if names[i] == symbol {
			out = append(out, w)
		}
	}
	return out, nil
}

// lspOf returns the session's LSP hook, or the error when none is running.
func lspOf(s *toolrun.Session) (*LSP, error) {
	if l, ok := s.LSP.(*LSP); ok && l != nil && l.M != nil {
		return l, nil
	}
	return nil, errors.New("LSP is not available in this session: no language server is enabled in lsp.json")
}

// resolveSymbolPath resolves file_path: absolute, ~/ (home), or relative
// to the session's working directory.
func resolveSymbolPath(cwd, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return resolvePath(cwd, p)
}

// readSymbolFile reads the file the symbol is in.
func readSymbolFile(cwd, arg string) (string, string, error) {
	path := resolveSymbolPath(cwd, arg)
	b, err := safefile.ReadRegular(path, toolrun.MaxWholeFile, "lsp")
	if errors.Is(err, os.ErrNotExist) {
		return "", "", errors.New("File does not exist: " + path)
	}
	if err != nil {
		return "", "", NodeError(err, "open", path)
	}
	return path, DecodeUTF8(b), nil
}

// probed is one candidate's rendered answer: the text is also the key
// that tells equal answers (one symbol) from different ones.
type probed struct {
	text     string
	payload  any
	cand     candidate
	renameID string // the rename's placeholder, for the ambiguity list
}

// ambiguity renders the seed's ambiguity error from groups of candidates.
func ambiguity(head string, groups [][]probed, withTarget bool) error {
	var lines []string
	for _, g := range groups {
		for _, p := range g {
			l := "- line " + strconv.Itoa(p.cand.line+1) + ", column " + strconv.Itoa(p.cand.char+1)
			if withTarget {
				t := p.renameID
				if t == "" {
					t = "unknown"
				}
				l += " (rename target: " + t + ")"
			}
			lines = append(lines, l)
		}
	}
	return errors.New(head + "\n" + strings.Join(lines, "\n"))
}

// group splits probes by key, in first-seen order.
func group(ps []probed, key func(probed) string) [][]probed {
	var order []string
	m := map[string][]probed{}
	for _, p := range ps {
		k := key(p)
		if _, ok := m[k]; !ok {
			order = append(order, k)
		}
		m[k] = append(m[k], p)
	}
	out := make([][]probed, len(order))
	for i, k := range order {
		out[i] = m[k]
	}
	return out
}

// serverCol is the column a server expects for a candidate.
func serverCol(srv *lsp.Running, c candidate) int {
	if srv.UTF8 {
		return c.byteCol
	}
	return c.char
}

// probe runs the query at every candidate of the symbol and returns the one
// answer, or the ambiguity error.
func probe(ctx context.Context, inv *toolrun.Invocation, query func(context.Context, *lsp.Running, string, candidate) (probed, error)) (probed, *symbolArgs, error) {
	var a symbolArgs
	if err := inv.Decode(&a); err != nil {
		return probed{}, nil, err
	}
	s := inv.Session
	l, err := lspOf(s)
	if err != nil {
		return probed{}, nil, err
	}
	path, text, err := readSymbolFile(s.Cwd, a.FilePath)
	if err != nil {
		return probed{}, nil, err
	}
	var char *int
	if a.Character != nil {
		c := *a.Character - 1
		char = &c
	}
	cands, err := symbolCandidates(text, a.Line-1, a.Symbol, char)
	if err != nil {
		return probed{}, nil, err
	}
	if len(cands) == 0 {
		return probed{}, nil, fmt.Errorf("Symbol %q not found on line %d of %s. Read the file again and locate the symbol.", a.Symbol, a.Line, path)
	}
	srv, err := l.M.LanguageServer(ctx, path)
	if err != nil {
		return probed{}, nil, err
	}
	var ps []probed
	for _, c := range cands {
		if ctx.Err() != nil {
			return probed{}, nil, errors.New(errAborted)
		}
		p, err := query(ctx, srv, path, c)
		if err != nil {
			return probed{}, nil, err
		}
		p.cand = c
		ps = append(ps, p)
	}
	groups := group(ps, func(p probed) string { return p.text })
	if len(groups) > 1 {
		return probed{}, nil, ambiguity(fmt.Sprintf("Ambiguous symbol on line %d of %s: several distinct symbols share the name %q. Retry with 'character' (1-based) to pick one:", a.Line, path, a.Symbol), groups, false)
	}
	return groups[0][0], &a, nil
}

// snippetCache reads source lines for location snippets.
type snippetCache map[string][]string

func (sc snippetCache) line(path string, line int) string {
	lines, ok := sc[path]
	if !ok {
		b, err := safefile.ReadRegular(path, toolrun.MaxWholeFile, "lsp")
		if err != nil {
			sc[path] = nil
			return ""
		}
		lines = strings.Split(DecodeUTF8(b), "\n")
		sc[path] = lines
	}
	if line < 0 || line >= len(lines) {
		return ""
	}
	t := strings.TrimSuffix(lines[line], "\r")
	if cut, ok := cutUTF16(t, snippetChars); ok {
		return cut + "…"
	}
	return t
}

// locationPayload is a structured location: absolute path, 1-based line
// and character.
type locationPayload struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
}

type locationsValue struct {
	Text      string            `json:"text"`
	ServerID  string            `json:"serverID"`
	Locations []locationPayload `json:"locations"`
}

func payloadOf(ls []lsp.Location) []locationPayload {
	out := make([]locationPayload, len(ls))
	for i, l := range ls {
		out[i] = locationPayload{l.Path, l.Line + 1, l.Character + 1}
	}
	return out
}

// FormatDefinitions renders definition sites with their source lines.
func formatDefinitions(ls []lsp.Location, sc snippetCache) string {
	if len(ls) == 0 {
		return "No definition found for this symbol."
	}
	lines := []string{"Found " + strconv.Itoa(len(ls)) + " definition(s):"}
	for _, l := range ls {
		e := "- " + l.Path + ":" + strconv.Itoa(l.Line+1) + ":" + strconv.Itoa(l.Character+1)
		if sn := sc.line(l.Path, l.Line); sn != "" {
			e += "\n  " + sn
		}
		lines = append(lines, e)
	}
	return strings.Join(lines, "\n")
}

// formatReferences renders references grouped by file: at most 10 per
// file and 30 files, the rest counted.
func formatReferences(ls []lsp.Location, sc snippetCache) string {
	if len(ls) == 0 {
		return "No references found for this symbol."
	}
	var paths []string
	by := map[string][]lsp.Location{}
	for _, l := range ls {
		if _, ok := by[l.Path]; !ok {
			paths = append(paths, l.Path)
		}
		by[l.Path] = append(by[l.Path], l)
	}
	out := []string{fmt.Sprintf("Found %d reference(s) in %d file(s):", len(ls), len(paths))}
	for _, p := range paths[:min(len(paths), refsFiles)] {
		es := by[p]
		out = append(out, fmt.Sprintf("### %s (%d)", p, len(es)))
		for _, e := range es[:min(len(es), refsPerFile)] {
			l := "- " + strconv.Itoa(e.Line+1) + ":" + strconv.Itoa(e.Character+1)
			if sn := sc.line(p, e.Line); sn != "" {
				l += ": " + sn
			}
			out = append(out, l)
		}
		if len(es) > refsPerFile {
			out = append(out, fmt.Sprintf("(+%d more in this file)", len(es)-refsPerFile))
		}
	}
	if len(paths) > refsFiles {
		n := 0
		for _, p := range paths[refsFiles:] {
			n += len(by[p])
		}
		out = append(out, fmt.Sprintf("(+%d reference(s) in %d more file(s) not shown)", n, len(paths)-refsFiles))
	}
	return strings.Join(out, "\n")
}

func structuredResult(text string, v any) toolrun.Result {
	r := toolrun.TextResult(text, nil)
	r.Structured = toolrun.MustJSON(v)
	return r
}

func lspFindDefinition(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	sc := snippetCache{}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		ls, err := srv.Definition(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := formatDefinitions(ls, sc)
		return probed{text: text, payload: locationsValue{text, srv.ID, payloadOf(ls)}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

func lspFindReference(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	sc := snippetCache{}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		ls, err := srv.References(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := formatReferences(ls, sc)
		return probed{text: text, payload: locationsValue{text, srv.ID, payloadOf(ls)}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

// formatHover passes hover contents through: a string as is, a
// MarkedString {language, value} as a fenced block, MarkupContent's value,
// an array of them joined by blank lines.
func formatHover(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		parts := make([]string, len(arr))
		for i, m := range arr {
			parts[i] = formatMarked(m)
		}
		return strings.Join(parts, "\n\n")
	}
	return formatMarked(raw)
}

func formatMarked(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m struct {
		Language *string `json:"language"`
		Value    string  `json:"value"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	if m.Language != nil {
		return "```" + *m.Language + "\n" + m.Value + "\n```"
	}
	return m.Value
}

func lspInspect(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a symbolArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		h, err := srv.Hover(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := fmt.Sprintf("No hover information for '%s' at line %d of %s.", a.Symbol, a.Line, path)
		if h != nil {
			text = formatHover(h)
		}
		return probed{text: text, payload: struct {
			Text     string `json:"text"`
			ServerID string `json:"serverID"`
		}{text, srv.ID}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

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
	cands, err := symbolCandidates(text, a.Line-1, a.Symbol, char)
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
			return toolrun.Result{}, errors.New(errAborted)
		}
		ph, edits, err := srv.Rename(ctx, path, c.line, serverCol(srv, c), a.NewName)
		if errors.Is(err, lsp.ErrNotRenameable) {
			notPossible = append(notPossible, fmt.Sprintf("%s: symbol at line %d, column %d of %s is not renameable", srv.ID, c.line+1, c.char+1, path))
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
			ReadError: func(err error) error { return fsErrorAt(err, "open", p) },
			Update: func(old []byte, exists bool) ([]byte, error) {
				if !exists {
					return nil, NodeError(syscall.ENOENT, "open", p)
				}
				nt, err := applyTextEdits(p, string(old), res.edits[p], srv.UTF8)
				return []byte(nt), err
			}}
	}
	pending, err := s.PrepareAll(ctx, writes)
	if err != nil {
		return toolrun.Result{}, fsError(err)
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
			werr = fsError(err)
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
			return toolrun.Result{}, errors.New(errAborted)
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
		text += "\n\nLSP diagnostics detected in renamed files:\n" + strings.TrimRightFunc(diag.String(), jsSpace)
	}
	var details any
	if s.FileIO != "" {
		details = readsDetails{reads}
	}
	return toolrun.TextResult(text, details), nil
}
