// Package lsp implements the language-server tools (lsp-find-definition,
// lsp-find-reference, lsp-inspect, lsp-rename) over package internal/lsp, one file per tool.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("lsp", "lsp-find-definition", toolrun.Impl{Execute: lspFindDefinition})
	r.Register("lsp", "lsp-find-reference", toolrun.Impl{Execute: lspFindReference})
	r.Register("lsp", "lsp-inspect", toolrun.Impl{Execute: lspInspect})
	r.Register("lsp", "lsp-rename", toolrun.Impl{Execute: lspRename})
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
	line, Char, ByteCol int
}

var wordRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`[\p{L}\p{N}_$]+`) }}

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

// SymbolCandidates lists the occurrences of symbol as a whole word on line
// (0-based). With character (0-based UTF-16), that column must fall inside
// the word symbol, and it is the only candidate.
func SymbolCandidates(text string, line int, symbol string, character *int) ([]candidate, error) {
	lt, ok := lineText(text, line)
	if !ok {
		return nil, nil
	}
	var words []candidate
	var names []string
	for _, m := range wordRE.Get().FindAllStringIndex(lt, -1) {
		words = append(words, candidate{line, toolkit.Utf16Len(lt[:m[0]]), m[0]})
		names = append(names, lt[m[0]:m[1]])
	}
	if character != nil {
		c := *character
		for i, w := range words {
			if c >= w.Char && c < w.Char+toolkit.Utf16Len(names[i]) {
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
func lspOf(s *toolrun.Session) (*toolkit.LSP, error) {
	if l, ok := s.LSP.(*toolkit.LSP); ok && l != nil && l.M != nil {
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
	return toolkit.AbsPath(cwd, p)
}

// readSymbolFile reads the file the symbol is in.
func readSymbolFile(cwd, arg string) (string, string, error) {
	path := resolveSymbolPath(cwd, arg)
	b, err := safefile.ReadRegular(path, toolrun.MaxWholeFile, "lsp")
	if errors.Is(err, os.ErrNotExist) {
		return "", "", errors.New("File does not exist: " + path)
	}
	if err != nil {
		return "", "", toolkit.NodeError(err, "open", path)
	}
	return path, toolkit.DecodeUTF8(b), nil
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
			l := "- line " + strconv.Itoa(p.cand.line+1) + ", column " + strconv.Itoa(p.cand.Char+1)
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
		return c.ByteCol
	}
	return c.Char
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
	cands, err := SymbolCandidates(text, a.Line-1, a.Symbol, char)
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
			return probed{}, nil, errors.New(toolkit.ErrAborted)
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
		lines = strings.Split(toolkit.DecodeUTF8(b), "\n")
		sc[path] = lines
	}
	if line < 0 || line >= len(lines) {
		return ""
	}
	t := strings.TrimSuffix(lines[line], "\r")
	if cut, ok := toolkit.CutUTF16(t, snippetChars); ok {
		return cut + "…"
	}
	return t
}

// LocationPayload is a structured location: absolute path, 1-based line
// and character.
type LocationPayload struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
}

type LocationsValue struct {
	Text      string            `json:"text"`
	ServerID  string            `json:"serverID"`
	Locations []LocationPayload `json:"locations"`
}

func payloadOf(ls []lsp.Location) []LocationPayload {
	out := make([]LocationPayload, len(ls))
	for i, l := range ls {
		out[i] = LocationPayload{l.Path, l.Line + 1, l.Character + 1}
	}
	return out
}

func structuredResult(text string, v any) toolrun.Result {
	r := toolrun.TextResult(text, nil)
	r.Structured = toolrun.MustJSON(v)
	return r
}
