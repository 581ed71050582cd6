package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ocMatch is one grep match: the path as ripgrep printed it, the line
// number and the line's text.
type ocMatch struct {
	path string
	line int
	text string
}

// parseGrepRecord reads one `rg --json` line; only match records count.
func parseGrepRecord(line []byte) (ocMatch, bool, error) {
	if len(line) > ocRecordBytes {
		return ocMatch{}, false, fmt.Errorf("ripgrep JSON record exceeded %d bytes", ocRecordBytes)
	}
	var rec struct {
		Type string `json:"type"`
		Data struct {
			Path       toolkit.RgText `json:"path"`
			Lines      toolkit.RgText `json:"lines"`
			LineNumber *int           `json:"line_number"`
		} `json:"data"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return ocMatch{}, false, errors.New("Invalid ripgrep JSON output")
	}
	if rec.Type != "match" {
		return ocMatch{}, false, nil
	}
	path, ok1 := rec.Data.Path.Str()
	text, ok2 := rec.Data.Lines.Str()
	if !ok1 || !ok2 || rec.Data.LineNumber == nil {
		return ocMatch{}, false, errors.New("Invalid ripgrep JSON output")
	}
	text = strings.TrimRight(text, "\r\n")
	if cut, ok := toolkit.CutUTF16(text, ocGrepLineMax); ok {
		text = cut + "..."
	}
	return ocMatch{path: strings.TrimPrefix(path, "./"), line: *rec.Data.LineNumber, text: text}, true, nil
}

// GrepArgs is grep's ripgrep command line. --sort=path is pigo's: it
// makes the first 100 matches the same on every run.
func GrepArgs(pattern, include, target string) []string {
	args := []string{"--no-config", "--json", "--hidden", "--no-messages", "--sort=path"}
	if include != "" {
		args = append(args, "--glob="+include)
	}
	return append(args, "--glob=!**/.git/**", "--", pattern, target)
}

// ocGrepFormat renders grep's matches grouped by file.
func ocGrepFormat(matches []ocMatch, truncated bool) string {
	if len(matches) == 0 {
		return "No files found"
	}
	head := "Found " + strconv.Itoa(len(matches)) + " matches"
	if truncated {
		head += " (more matches available)"
	}
	out := []string{head}
	cur := ""
	for _, m := range matches {
		if m.path != cur {
			if cur != "" {
				out = append(out, "")
			}
			cur = m.path
			out = append(out, m.path+":")
		}
		out = append(out, "  Line "+strconv.Itoa(m.line)+": "+m.text)
	}
	if truncated {
		out = append(out, "", "(Results truncated. Consider using a more specific path or pattern.)")
	}
	return strings.Join(out, "\n")
}

// Grep is opencode's grep.
func Grep(ctx context.Context, s *toolrun.Session, pattern string, path, include *string) (string, error) {
	cwd := s.Cwd
	if pattern == "" {
		return "", errors.New("pattern is required")
	}
	req := cwd
	if path != nil && *path != "" {
		req = toolkit.AbsPath(cwd, *path)
	}
	st, err := os.Stat(req)
	if errors.Is(err, os.ErrNotExist) {
		shown := req
		if path != nil {
			shown = *path
		}
		return "", errors.New("Path does not exist: " + shown + ". Note: your current working directory is " + cwd + "." + ocDidYouMean(req))
	}
	if err != nil {
		return "", err
	}
	dir, target := req, "."
	if !st.IsDir() {
		dir, target = filepath.Dir(req), req
	}
	inc := ""
	if include != nil {
		inc = *include
	}
	matches, truncated, err := streamRG(ctx, s, dir, req, GrepArgs(pattern, inc, target), ocRGLimit, parseGrepRecord)
	if err != nil {
		return "", err
	}
	for i := range matches {
		if !filepath.IsAbs(matches[i].path) {
			matches[i].path = filepath.Join(dir, matches[i].path)
		}
	}
	return ocGrepFormat(matches, truncated), nil
}

// ocGrepParams are opencode grep's parameters.
type ocGrepParams struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
	Include *string `json:"include"`
}
