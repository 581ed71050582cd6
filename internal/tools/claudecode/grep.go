package claudecode

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ccVCSDirs are excluded from Grep.
var ccVCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// GrepParams are claude-code Grep's arguments.
type GrepParams struct {
	Pattern    string   `json:"pattern"`
	Path       *string  `json:"path,omitempty"`
	Glob       *string  `json:"glob,omitempty"`
	OutputMode *string  `json:"output_mode,omitempty"`
	Before     *float64 `json:"-B,omitempty"`
	After      *float64 `json:"-A,omitempty"`
	Around     *float64 `json:"-C,omitempty"`
	Context    *float64 `json:"context,omitempty"`
	LineNums   *bool    `json:"-n,omitempty"`
	IgnoreCase *bool    `json:"-i,omitempty"`
	Type       *string  `json:"type,omitempty"`
	HeadLimit  *float64 `json:"head_limit,omitempty"`
	Offset     *float64 `json:"offset,omitempty"`
	Multiline  *bool    `json:"multiline,omitempty"`
}

func (p *GrepParams) mode() string {
	if p.OutputMode == nil {
		return "files_with_matches"
	}
	return *p.OutputMode
}

// GrepArgs builds Grep's ripgrep arguments; root is the absolute search
// path. Content and count modes add --sort=path: ripgrep's parallel walk
// orders files differently from run to run, and pigo's output is
// deterministic (the seed's is not).
func GrepArgs(p *GrepParams, root string) []string {
	args := []string{"--color=never", "--hidden", "--max-columns", "500"}
	for _, d := range ccVCSDirs {
		args = append(args, "--glob", "!"+d)
	}
	switch p.mode() {
	case "files_with_matches":
		args = append(args, "--files-with-matches")
	case "count":
		args = append(args, "-c", "--sort=path")
	case "content":
		args = append(args, "--no-heading", "--with-filename", "--sort=path")
		if p.LineNums == nil || *p.LineNums {
			args = append(args, "--line-number")
		}
		around := p.Context
		if around == nil {
			around = p.Around
		}
		if around == nil {
			if p.Before != nil {
				args = append(args, "--before-context", toolkit.JsNumber(*p.Before))
			}
			if p.After != nil {
				args = append(args, "--after-context", toolkit.JsNumber(*p.After))
			}
		} else {
			args = append(args, "--context", toolkit.JsNumber(*around))
		}
	}
	if p.IgnoreCase != nil && *p.IgnoreCase {
		args = append(args, "--ignore-case")
	}
	if p.Type != nil && *p.Type != "" {
		args = append(args, "--type", *p.Type)
	}
	if p.Multiline != nil && *p.Multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	if p.Glob != nil && *p.Glob != "" {
		for _, raw := range strings.FieldsFunc(*p.Glob, toolkit.JsSpace) {
			if strings.Contains(raw, "{") && strings.Contains(raw, "}") {
				args = append(args, "--glob", raw)
				continue
			}
			for _, g := range strings.Split(raw, ",") {
				if g != "" {
					args = append(args, "--glob", g)
				}
			}
		}
	}
	if strings.HasPrefix(p.Pattern, "-") {
		args = append(args, "-e", p.Pattern)
	} else {
		args = append(args, p.Pattern)
	}
	return append(args, root)
}

// ccNonNegative checks Grep's offset and head_limit.
func ccNonNegative(v *float64, name string) (int, error) {
	if v == nil {
		return -1, nil
	}
	f := *v
	if f != math.Trunc(f) || f < 0 || f > 1<<53-1 {
		return 0, errors.New(name + " must be a non-negative integer")
	}
	return int(f), nil
}

// cutChars cuts s at max UTF-16 units with Grep's truncation note.
func cutChars(s string, maxUnits int) string {
	if cut, ok := toolkit.CutUTF16(s, maxUnits); ok {
		return cut + "\n\n[Output truncated at " + strconv.Itoa(maxUnits) + " characters]"
	}
	return s
}

// page skips offset lines and keeps headLimit (0 = all); the note lists
// what was actually applied.
func page(lines []string, offset, headLimit int) ([]string, string) {
	rest := lines[min(offset, len(lines)):]
	var parts []string
	if headLimit > 0 && len(rest) > headLimit {
		rest = rest[:headLimit]
		parts = append(parts, "limit: "+strconv.Itoa(headLimit))
	}
	if offset > 0 {
		parts = append(parts, "offset: "+strconv.Itoa(offset))
	}
	return rest, strings.Join(parts, ", ")
}

// ccGrepFormat renders rg's output (exit 1 = no output) for a mode.
func ccGrepFormat(p *GrepParams, stdout, cwd string, offset, headLimit int) string {
	switch p.mode() {
	case "files_with_matches":
		if stdout == "" {
			return "No files found"
		}
		var paths []string
		for _, l := range rgLines(stdout) {
			if l != "" {
				paths = append(paths, l)
			}
		}
		sortByMtime(paths)
		lines, info := page(paths, offset, headLimit)
		for i, l := range lines {
			lines[i] = ccRelPath(l, cwd)
		}
		head := "Found " + strconv.Itoa(len(lines)) + " file"
		if len(lines) != 1 {
			head += "s"
		}
		if info != "" {
			head += " " + info
		}
		return cutChars(head+"\n"+strings.Join(lines, "\n"), ccGrepMaxChars)
	case "count":
		if stdout == "" {
			return "No matches found\n\nFound 0 total occurrences across 0 files."
		}
		lines, info := page(rgLines(stdout), offset, headLimit)
		occ, files := 0, 0
		for i, l := range lines {
			c := strings.LastIndexByte(l, ':')
			if c > 0 {
				lines[i] = ccRelPath(l[:c], cwd) + l[c:]
			}
			if c >= 0 {
				files++
				if n, err := strconv.Atoi(l[c+1:]); err == nil {
					occ += n
				}
			}
		}
		out := strings.TrimRightFunc(strings.Join(lines, "\n"), toolkit.JsSpace) + "\n\nFound " + strconv.Itoa(occ) + " total occurrence"
		if occ != 1 {
			out += "s"
		}
		out += " across " + toolkit.Plural(files, "file") + "."
		if info != "" {
			out += " with pagination = " + info
		}
		return cutChars(out, ccGrepMaxChars)
	}
	if stdout == "" {
		return "No matches found"
	}
	lines, info := page(rgLines(stdout), offset, headLimit)
	for i, l := range lines {
		if c := strings.IndexByte(l, ':'); c > 0 {
			lines[i] = ccRelPath(l[:c], cwd) + l[c:]
		}
	}
	out := strings.Join(lines, "\n")
	if info != "" {
		out += "\n\n[Showing results with pagination = " + info + "]"
	}
	return cutChars(out, ccGrepMaxChars)
}

// sortByMtime orders paths newest first, ties by locale order of the path;
// a path that cannot be stat-ed counts as mtime 0.
func sortByMtime(paths []string) {
	if len(paths) <= 1 {
		return
	}
	mt := make(map[string]int64, len(paths))
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			mt[p] = st.ModTime().UnixNano()
		}
	}
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := mt[paths[i]], mt[paths[j]]
		if a != b {
			return a > b
		}
		return toolkit.LocaleLessCased(paths[i], paths[j])
	})
}

// Grep is claude-code's Grep.
func Grep(ctx context.Context, s *toolrun.Session, p *GrepParams) (string, error) {
	cwd := s.Cwd
	offset, err := ccNonNegative(p.Offset, "offset")
	if err != nil {
		return "", err
	}
	headLimit, err := ccNonNegative(p.HeadLimit, "head_limit")
	if err != nil {
		return "", err
	}
	offset = max(offset, 0)
	if headLimit < 0 {
		headLimit = ccGrepHeadLimit
	}
	root := cwd
	if p.Path != nil && *p.Path != "" {
		root = toolkit.AbsPath(cwd, *p.Path)
		if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
			msg := "Path does not exist: " + *p.Path + ". Note: your current working directory is " + cwd + "."
			if s := ccPathUnderCwd(root, cwd); s != "" {
				msg += " Did you mean " + s + "?"
			}
			return "", errors.New(msg)
		}
	}
	r, err := runRG(ctx, s, cwd, root, GrepArgs(p, root))
	if err != nil {
		return "", err
	}
	if r.code != 0 && r.code != 1 {
		if msg := strings.TrimSpace(r.stderr); msg != "" {
			return "", errors.New(msg)
		}
		return "", fmt.Errorf("ripgrep exited with code %d", r.code)
	}
	if r.code == 1 {
		r.stdout = ""
	}
	return ccGrepFormat(p, r.stdout, cwd, offset, headLimit), nil
}
