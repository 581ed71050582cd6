package tools

// The claude-code file toolset (Read Edit Write Grep Glob Bash TodoWrite
// AskUserQuestion): model-visible texts, limits and formats as the seed's
// src/claude-code/*.ts (runtime-behaviour.md §1.2).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

const (
	// ccMaxReadBytes is the largest file a Read without limit returns.
	ccMaxReadBytes = 256 << 10
	// ccMaxReadTokens caps the formatted output (chars/4, rounded up).
	ccMaxReadTokens = 25000
	// ccMaxEditBytes is the largest file Edit opens.
	ccMaxEditBytes = 1 << 30
	// sampleBytes is how much of a file the binary sniffers look at.
	sampleBytes = 4096
)

// ccImageMimes are the image types claude-code's Read recognises, by extension.
var ccImageMimes = map[string]string{
	".gif": "image/gif", ".jpeg": "image/jpeg", ".jpg": "image/jpeg",
	".png": "image/png", ".webp": "image/webp",
}

// ccCapTail ends both of Read's size refusals.
const ccCapTail = " Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."

// fixed1 formats n/unit with one decimal like JavaScript's toFixed(1):
// ties round up (toFixed picks the larger of two equally close values).
func fixed1(n, unit int64) string {
	tenths := (n*20 + unit) / (2 * unit)
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10)
}

// ccFileSize is the seed's formatFileSize: `<n> B`, `<x.x> KB`, `<x.x> MB`, `<x.x> GB`.
func ccFileSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return fixed1(n, 1<<10) + " KB"
	case n < 1<<30:
		return fixed1(n, 1<<20) + " MB"
	}
	return fixed1(n, 1<<30) + " GB"
}

// isBinarySample is the seed's sniffer: a NUL byte, or more than 30 % of
// control bytes other than \t \n \v \f \r.
func isBinarySample(sample []byte) bool {
	suspicious := 0
	for _, b := range sample {
		if b == 0 {
			return true
		}
		if b < 9 || (b > 13 && b < 32) {
			suspicious++
		}
	}
	return len(sample) > 0 && float64(suspicious)/float64(len(sample)) > 0.3
}

// resolvePath makes p absolute against cwd (claude-code and opencode both
// accept relative paths; ~ is not expanded, as in the seed's file tools).
func resolvePath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// ccSimilarFile is a file in the same directory with the same base name and
// another extension (the first in name order), or "".
func ccSimilarFile(path string) string {
	dir := filepath.Dir(path)
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		name := e.Name()
		if strings.TrimSuffix(name, filepath.Ext(name)) == base && filepath.Join(dir, name) != path {
			return name
		}
	}
	return ""
}

// ccPathUnderCwd is the dropped-repo-folder correction: a path under cwd's
// parent but not under cwd, re-rooted at cwd, when that exists.
func ccPathUnderCwd(path, cwd string) string {
	parent := filepath.Dir(cwd)
	resolved := path
	if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		resolved = filepath.Join(d, filepath.Base(path))
	}
	prefix := parent + string(filepath.Separator)
	if parent == string(filepath.Separator) {
		prefix = parent
	}
	if resolved == cwd || !strings.HasPrefix(resolved, prefix) || strings.HasPrefix(resolved, cwd+string(filepath.Separator)) {
		return ""
	}
	rel, err := filepath.Rel(parent, resolved)
	if err != nil {
		return ""
	}
	corrected := filepath.Join(cwd, rel)
	if _, err := os.Stat(corrected); err != nil {
		return ""
	}
	return corrected
}

// ccDidYouMean is claude-code's suggestion for a missing path: the cwd
// correction first, then a same-named file with another extension; "" when
// neither exists.
func ccDidYouMean(path, cwd string) string {
	if s := ccPathUnderCwd(path, cwd); s != "" {
		return s
	}
	return ccSimilarFile(path)
}

// ccNotFound is the claude-code text for a missing file or directory; what
// names the thing ("File does not exist", "Path does not exist: <p>", …).
func ccNotFound(what, path, cwd string) error {
	msg := what + ". Note: your current working directory is " + cwd + "."
	if s := ccDidYouMean(path, cwd); s != "" {
		msg += " Did you mean " + s + "?"
	}
	return errors.New(msg)
}

// ccSplitLines splits a file as claude-code's Read does: BOM stripped, a
// final "\n" added to a non-empty text before splitting (so the count is one
// more than an editor shows), and a trailing "\r" dropped from each line.
func ccSplitLines(text string) []string {
	text = strings.TrimPrefix(text, bom)
	if text == "" {
		return nil
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// ccFormatRead renders a text file for Read: `<n>: <line>` joined by "\n".
// offset nil reads from line 1; 0 reads from the first line numbered 0; a
// negative offset starts that many real lines before the end (the phantom
// last line is not counted). limit nil reads to the end.
func ccFormatRead(text string, offset, limit *int) string {
	lines := ccSplitLines(text)
	total := len(lines)
	if total == 0 {
		return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	}
	off := 1
	if offset != nil {
		off = *offset
	}
	var start, first, end int
	switch {
	case off < 0:
		real := total - 1
		start = max(0, real+off)
		first = start + 1
		end = real
	case off > total:
		return fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", off, total)
	case off == 0:
		start, first, end = 0, 0, total
	default:
		start, first, end = off-1, off, total
	}
	if limit != nil && start+*limit < end {
		end = start + *limit
	}
	var b strings.Builder
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(first + i - start))
		b.WriteString(": ")
		b.WriteString(lines[i])
	}
	return b.String()
}

// ccIntArg checks a numeric argument of Read: nil stays nil; a value that
// is not a safe integer is the error text.
func ccIntArg(v *float64, msg string, positive bool) (*int, error) {
	if v == nil {
		return nil, nil
	}
	f := *v
	if f != math.Trunc(f) || math.Abs(f) > 1<<53-1 || (positive && f < 1) {
		return nil, errors.New(msg)
	}
	n := int(f)
	return &n, nil
}

// ccReadText is Read on a text file's bytes, after the binary check: the
// size cap for a whole read, the formatting and the token cap.
func ccReadText(data []byte, offset, limit *int) (string, error) {
	if limit == nil && len(data) > ccMaxReadBytes {
		return "", fmt.Errorf("File content (%s) exceeds maximum allowed size (%s).%s", ccFileSize(int64(len(data))), ccFileSize(ccMaxReadBytes), ccCapTail)
	}
	out := ccFormatRead(string(data), offset, limit)
	if tokens := (utf16Len(out) + 3) / 4; tokens > ccMaxReadTokens {
		return "", fmt.Errorf("File content (%d tokens) exceeds maximum allowed tokens (%d).%s", tokens, ccMaxReadTokens, ccCapTail)
	}
	return out, nil
}

// ccRelPath is a result path relative to cwd, unless that would start with "..".
func ccRelPath(path, cwd string) string {
	rel, err := filepath.Rel(cwd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}

// ccVCSDirs are excluded from Grep.
var ccVCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

const (
	ccGrepHeadLimit = 250
	ccGrepMaxChars  = 30000
	ccGlobLimit     = 100
)

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

// jsNumber is String(n) for the numbers a model sends.
func jsNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ccGrepArgs builds Grep's ripgrep arguments; root is the absolute search
// path. Content and count modes add --sort=path: ripgrep's parallel walk
// orders files differently from run to run, and pigo's output is
// deterministic (the seed's is not).
func ccGrepArgs(p *GrepParams, root string) []string {
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
				args = append(args, "--before-context", jsNumber(*p.Before))
			}
			if p.After != nil {
				args = append(args, "--after-context", jsNumber(*p.After))
			}
		} else {
			args = append(args, "--context", jsNumber(*around))
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
		for _, raw := range strings.FieldsFunc(*p.Glob, jsSpace) {
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
	if cut, ok := cutUTF16(s, maxUnits); ok {
		return cut + "\n\n[Output truncated at " + strconv.Itoa(maxUnits) + " characters]"
	}
	return s
}

// rgLines splits ripgrep output into lines, without the final newline.
func rgLines(out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
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

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
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
		out := strings.TrimRightFunc(strings.Join(lines, "\n"), jsSpace) + "\n\nFound " + strconv.Itoa(occ) + " total occurrence"
		if occ != 1 {
			out += "s"
		}
		out += " across " + plural(files, "file") + "."
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
		return localeLessCased(paths[i], paths[j])
	})
}

// ccGlobBase splits an absolute pattern at the last separator before its
// first glob character into a base directory and a relative pattern.
func ccGlobBase(pattern string) (string, string) {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return filepath.Dir(pattern), filepath.Base(pattern)
	}
	static := pattern[:i]
	sep := strings.LastIndexByte(static, '/')
	if sep < 0 {
		return "", pattern
	}
	base := static[:sep]
	if base == "" && sep == 0 {
		base = "/"
	}
	return base, pattern[sep+1:]
}

// ccGlobArgs is the Glob command line (run in the search directory).
func ccGlobArgs(pattern string) []string {
	return []string{"--files", "--glob", pattern, "--sort=modified", "--no-ignore", "--hidden", "--glob", "!.git/**"}
}

// ccGlobFormat renders Glob's result from rg's output run in dir.
func ccGlobFormat(stdout, dir, cwd string) string {
	lines := rgLines(stdout)
	truncated := len(lines) > ccGlobLimit
	if truncated {
		lines = lines[:ccGlobLimit]
	}
	for i, l := range lines {
		if !filepath.IsAbs(l) {
			l = filepath.Join(dir, l)
		}
		lines[i] = ccRelPath(l, cwd)
	}
	if truncated {
		lines = append(lines, "(Results are truncated. Consider using a more specific path or pattern.)")
	}
	if len(lines) == 0 {
		return "No files found"
	}
	return strings.Join(lines, "\n")
}

// errNoRG is the text for a missing ripgrep binary.
var errNoRG = errors.New("ripgrep (rg) was not found on PATH; install ripgrep to use this tool.")

// rgResult is one finished ripgrep run.
type rgResult struct {
	stdout, stderr string
	code           int
}

// runRG runs ripgrep in dir to completion, buffering its output.
func runRG(ctx context.Context, dir string, args []string) (rgResult, error) {
	bin, err := exec.LookPath("rg")
	if err != nil {
		return rgResult{}, errNoRG
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return rgResult{}, ctx.Err()
	}
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return rgResult{}, err
		}
		code = ee.ExitCode()
	}
	return rgResult{out.String(), errb.String(), code}, nil
}

// ccGrep is claude-code's Grep.
func ccGrep(ctx context.Context, cwd string, p *GrepParams) (string, error) {
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
		root = resolvePath(cwd, *p.Path)
		if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
			msg := "Path does not exist: " + *p.Path + ". Note: your current working directory is " + cwd + "."
			if s := ccPathUnderCwd(root, cwd); s != "" {
				msg += " Did you mean " + s + "?"
			}
			return "", errors.New(msg)
		}
	}
	r, err := runRG(ctx, cwd, ccGrepArgs(p, root))
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

// ccGlob is claude-code's Glob.
func ccGlob(ctx context.Context, cwd, pattern string, path *string) (string, error) {
	root := cwd
	if path != nil && *path != "" {
		root = resolvePath(cwd, *path)
		st, err := os.Stat(root)
		if errors.Is(err, os.ErrNotExist) {
			msg := "Directory does not exist: " + *path + ". Note: your current working directory is " + cwd + "."
			if s := ccPathUnderCwd(root, cwd); s != "" {
				msg += " Did you mean " + s + "?"
			}
			return "", errors.New(msg)
		}
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return "", errors.New("Path is not a directory: " + *path)
		}
	}
	dir, pat := root, pattern
	if filepath.IsAbs(pattern) {
		if base, rel := ccGlobBase(pattern); base != "" {
			dir, pat = base, rel
		}
	}
	r, err := runRG(ctx, dir, ccGlobArgs(pat))
	if err != nil {
		if errors.Is(err, errNoRG) || ctx.Err() != nil {
			return "", err
		}
		return "", errors.New("ripgrep failed: " + err.Error())
	}
	switch r.code {
	case 0:
	case 1:
		r.stdout = ""
	default:
		msg := strings.TrimSpace(r.stderr)
		if msg == "" {
			msg = fmt.Sprintf("Command failed: rg %s", strings.Join(ccGlobArgs(pat), " "))
		}
		return "", errors.New("ripgrep failed: " + msg)
	}
	return ccGlobFormat(r.stdout, dir, cwd), nil
}

func init() {
	Register("claude-code", "Read", toolrun.Impl{Execute: ccRead})
	Register("claude-code", "Edit", toolrun.Impl{Execute: ccEdit})
	Register("claude-code", "Write", toolrun.Impl{Execute: ccWrite})
	Register("claude-code", "Grep", textTool(func(ctx context.Context, cwd string, p *GrepParams) (string, error) {
		return ccGrep(ctx, cwd, p)
	}))
	Register("claude-code", "Glob", textTool(func(ctx context.Context, cwd string, p *globParams) (string, error) {
		return ccGlob(ctx, cwd, p.Pattern, p.Path)
	}))
	Register("claude-code", "Bash", toolrun.Impl{Execute: ccBash})
	Register("claude-code", "TodoWrite", toolrun.Impl{Execute: ccTodoWrite})
	Register("claude-code", "AskUserQuestion", toolrun.Impl{Execute: ccAsk, Sequential: true})
}

// readsDetails is the details of a recording tool: its `reads` entry.
type readsDetails struct {
	Reads map[string]toolrun.Snapshot `json:"reads"`
}

// withDiagnostics appends the LSP diagnostics of path (content is what is
// on disk now) to a success text, as the seed's appendLspDiagnosticText.
func withDiagnostics(ctx context.Context, s *toolrun.Session, text, path string, content []byte) string {
	if s.LSP == nil {
		return text
	}
	return AppendDiagnostics(text, s.LSP.Diagnostics(ctx, path, content))
}

type ccReadArgs struct {
	FilePath string   `json:"file_path"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
	Pages    *string  `json:"pages"`
}

func ccRead(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a ccReadArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	offset, err := ccIntArg(a.Offset, "offset must be an integer", false)
	if err != nil {
		return toolrun.Result{}, err
	}
	limit, err := ccIntArg(a.Limit, "limit must be a positive integer", true)
	if err != nil {
		return toolrun.Result{}, err
	}
	path := resolvePath(s.Cwd, a.FilePath)
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return toolrun.Result{}, ccNotFound("File does not exist", path, s.Cwd)
	}
	if err != nil {
		return toolrun.Result{}, NodeError(err, "stat", path)
	}
	if st.IsDir() {
		return toolrun.Result{}, errors.New("EISDIR: illegal operation on a directory, read '" + path + "'")
	}
	if !st.Mode().IsRegular() {
		return toolrun.Result{}, errors.New("File not found: " + path)
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".pdf" {
		return toolrun.Result{}, errors.New("PDF page rendering is not supported by this pi tool host. Use an external PDF extraction tool before calling Read.")
	}
	_, isImage := ccImageMimes[ext]
	if !isImage && limit == nil && st.Size() > ccMaxReadBytes {
		// Refused from the size on disk, after the binary check of the
		// first bytes as the seed orders them: a huge file is never loaded.
		if head, err := readHead(path, sampleBytes); err == nil && isBinarySample(head) {
			return toolrun.Result{}, errors.New("Cannot read binary file: " + path)
		}
		return toolrun.Result{}, fmt.Errorf("File content (%s) exceeds maximum allowed size (%s).%s", ccFileSize(st.Size()), ccFileSize(ccMaxReadBytes), ccCapTail)
	}
	data, err := readWhole(path, "Read")
	if err != nil {
		return toolrun.Result{}, err
	}
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(errAborted)
	}
	reads := s.Reads("claude-code")
	if mime, ok := ccImageMimes[ext]; ok {
		rec := reads.Record(path, data, false)
		return toolrun.Result{
			Content: []llm.Content{llm.TextBlock("Read image file [" + mime + "]"),
				{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}},
			Details: toolrun.MustJSON(readsDetails{rec}),
		}, nil
	}
	if isBinarySample(data[:min(len(data), sampleBytes)]) {
		return toolrun.Result{}, errors.New("Cannot read binary file: " + path)
	}
	text, err := ccReadText([]byte(DecodeUTF8(data)), offset, limit)
	if err != nil {
		return toolrun.Result{}, err
	}
	rec := reads.Record(path, data, true)
	text = withDiagnostics(ctx, s, text, path, data)
	return toolrun.TextResult(text, readsDetails{rec}), nil
}

type ccEditArgs struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll *bool  `json:"replace_all"`
}

// editDetails is Edit's and edit's details: pi's diff of the change, the
// unified patch, the first changed line and the read recorded.
type fileEditDetails struct {
	Diff             string                      `json:"diff"`
	Patch            string                      `json:"patch"`
	FirstChangedLine *int                        `json:"firstChangedLine,omitempty"`
	Reads            map[string]toolrun.Snapshot `json:"reads"`
}

func newEditDetails(path string, old, new []byte, rec map[string]toolrun.Snapshot) fileEditDetails {
	o, n := normalizeLF(DecodeUTF8(old)), normalizeLF(DecodeUTF8(new))
	parts := lineDiff(o, n)
	_, first := diffStringParts(o, n, parts, 4)
	do, dn := tabsToSpaces(o), tabsToSpaces(n)
	diff, _ := diffString(do, dn, 4)
	d := fileEditDetails{Diff: diff, Patch: unifiedPatchParts(path, parts, 4), Reads: rec}
	if first > 0 {
		d.FirstChangedLine = &first
	}
	return d
}

// tabsToSpaces turns each leading tab of a line into two spaces: the
// diff in Edit's details is for display, and tabs render unevenly.
func tabsToSpaces(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if n > 0 {
			lines[i] = strings.Repeat("  ", n) + l[n:]
		}
	}
	return strings.Join(lines, "\n")
}

func ccEdit(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a ccEditArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	path := resolvePath(s.Cwd, a.FilePath)
	all := a.ReplaceAll != nil && *a.ReplaceAll
	if a.OldString == a.NewString {
		return toolrun.Result{}, errors.New("No changes to make: old_string and new_string are exactly the same.")
	}
	// The size is checked before the file is read, so a huge file is never loaded.
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() > ccMaxEditBytes && a.OldString != "" {
		return toolrun.Result{}, fmt.Errorf("File is too large to edit (%s). Maximum editable file size is %s.", ccFileSize(st.Size()), ccFileSize(ccMaxEditBytes))
	}
	if a.OldString != "" && strings.EqualFold(filepath.Ext(path), ".ipynb") && exists(path) {
		return toolrun.Result{}, errors.New("File is a Jupyter Notebook. Use the NotebookEditTool to edit this file.")
	}
	fw := toolrun.FileWrite{Tool: "Edit", Path: path, Reads: "claude-code", Check: toolrun.Strict, Diagnose: true,
		ReadError: func(err error) error {
			if errors.Is(err, syscall.EISDIR) {
				return errors.New("EISDIR: illegal operation on a directory, read")
			}
			return fsError(err)
		}}
	if a.OldString == "" {
		// Creating a file needs no read; an existing file must be blank.
		fw.Check = toolrun.NoCheck
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if exists && strings.TrimFunc(DecodeUTF8(old), jsSpace) != "" {
				return nil, errors.New("Cannot create new file - file already exists.")
			}
			return []byte(a.NewString), nil
		}
	} else {
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, ccNotFound("File does not exist", path, s.Cwd)
			}
			updated, err := ExactEdit(string(old), a.OldString, a.NewString, all)
			return []byte(updated), err
		}
	}
	w, err := s.WriteFile(ctx, fw)
	if err != nil {
		return toolrun.Result{}, fsError(err)
	}
	msg := "The file " + path + " has been updated successfully."
	if all && a.OldString != "" {
		msg = "The file " + path + " has been updated. All occurrences were successfully replaced."
	}
	return toolrun.TextResult(AppendDiagnostics(msg, w.Diagnostics), newEditDetails(path, w.Old, w.New, w.Reads)), nil
}

func ccWrite(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	path := resolvePath(s.Cwd, a.FilePath)
	w, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "Write", Path: path, Reads: "claude-code", Check: toolrun.Strict, Diagnose: true,
		ReadError: fsError,
		Update:    func([]byte, bool) ([]byte, error) { return []byte(a.Content), nil }})
	if err != nil {
		return toolrun.Result{}, fsError(err)
	}
	msg := "The file " + path + " has been updated successfully."
	if !w.Existed {
		msg = "File created successfully at: " + path
	}
	return toolrun.TextResult(AppendDiagnostics(msg, w.Diagnostics), readsDetails{w.Reads}), nil
}

// readHead reads at most n bytes from the start of path.
func readHead(path string, n int) ([]byte, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return b[:k], nil
}

// ccTodo is one TodoWrite item.
type ccTodo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// ccTodoKey is the session's current TodoWrite list, replayed from the branch.
type ccTodoKey struct{}

type ccTodoList struct {
	mu    sync.Mutex
	todos []ccTodo
}

func ccTodos(s *toolrun.Session) *ccTodoList {
	return s.State(ccTodoKey{}, func() any { return &ccTodoList{} }).(*ccTodoList)
}

func init() {
	// The list follows the session branch: the last TodoWrite result on it is the current one.
	toolrun.OnReplay(func(s *toolrun.Session, msgs []llm.Message) {
		var last []ccTodo
		for _, m := range msgs {
			if m.Role != llm.RoleToolResult || m.ToolName != "TodoWrite" || (m.IsError != nil && *m.IsError) || len(m.Details) == 0 {
				continue
			}
			var d struct {
				Todos []ccTodo `json:"todos"`
			}
			if json.Unmarshal(m.Details, &d) == nil && d.Todos != nil {
				last = d.Todos
			}
		}
		l := ccTodos(s)
		l.mu.Lock()
		l.todos = last
		l.mu.Unlock()
	})
}

// ccTodoWrite merges the call's todos into the session's list by content (the seed's merge
// semantics): an item whose content is already listed takes the new status and activeForm in
// place, a new one is appended, and items the call does not name stay. details.todos is the
// whole merged list.
func ccTodoWrite(_ context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Todos []ccTodo `json:"todos"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	for i, t := range a.Todos {
		a.Todos[i] = ccTodo{Content: jsTrim(t.Content), Status: t.Status, ActiveForm: jsTrim(t.ActiveForm)}
		if a.Todos[i].Content == "" || a.Todos[i].ActiveForm == "" {
			return toolrun.Result{}, errors.New("Todo content and activeForm must not be blank.")
		}
	}
	l := ccTodos(inv.Session)
	l.mu.Lock()
	defer l.mu.Unlock()
	todos := append([]ccTodo{}, l.todos...)
	for _, t := range a.Todos {
		found := false
		for i := range todos {
			if todos[i].Content == t.Content {
				todos[i], found = t, true
				break
			}
		}
		if !found {
			todos = append(todos, t)
		}
	}
	inProgress := 0
	for _, t := range todos {
		if t.Status == "in_progress" {
			inProgress++
		}
	}
	if inProgress > 1 {
		return toolrun.Result{}, errors.New("Only one todo may be in_progress at a time.")
	}
	l.todos = todos
	return toolrun.TextResult("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
		struct {
			Todos []ccTodo `json:"todos"`
		}{todos}), nil
}

// CCTodoWidget is the widget the chat draws for TodoWrite's list:
// `Progress: c/n (p%)` then `- [ |>|x] text` (activeForm for the item in
// progress); nil for an empty list.
func CCTodoWidget(details json.RawMessage) []string {
	var d struct {
		Todos []ccTodo `json:"todos"`
	}
	if json.Unmarshal(details, &d) != nil || len(d.Todos) == 0 {
		return nil
	}
	done := 0
	for _, t := range d.Todos {
		if t.Status == "completed" {
			done++
		}
	}
	pct := int(math.Floor(float64(done)*100/float64(len(d.Todos)) + 0.5))
	out := []string{fmt.Sprintf("Progress: %d/%d (%d%%)", done, len(d.Todos), pct)}
	for _, t := range d.Todos {
		mark, text := " ", t.Content
		switch t.Status {
		case "in_progress":
			mark, text = ">", t.ActiveForm
		case "completed":
			mark = "x"
		}
		out = append(out, "- ["+mark+"] "+text)
	}
	return out
}

// Question is one question as the dialog shows it (package approve).
type Question = approve.Question

// QuestionOption is one choice of a question.
type QuestionOption = approve.Option

// ask puts q to the person through the session's approvals; noUI is the tool's refusal
// when nobody can be asked.
func ask(ctx context.Context, s *toolrun.Session, tool string, q Question, noUI string) ([]string, error) {
	d, err := s.ApproverFor(ctx).Ask(ctx, approve.Request{Kind: approve.KindQuestion, Tool: tool, Title: q.Title, Question: &q, NoUI: noUI})
	if err != nil {
		return nil, err
	}
	return d.Answers, nil
}

type ccQuestion struct {
	Question    string           `json:"question"`
	Header      string           `json:"header"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multiSelect"`
}

func ccAsk(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Questions []ccQuestion `json:"questions"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	const noUI = "Cannot ask questions: interactive UI is not available"
	if !inv.Session.CanAsk() {
		return toolrun.Result{}, errors.New(noUI)
	}
	var keys []string
	answers := map[string]string{}
	for _, q := range a.Questions {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(errAborted)
		}
		got, err := ask(ctx, inv.Session, "AskUserQuestion", Question{Title: q.Header + ": " + q.Question, Question: q.Question, Header: q.Header,
			Options: q.Options, Multiple: q.MultiSelect, Other: "Other", Done: "Done", InputPrompt: "Type your answer"}, noUI)
		if err != nil {
			return toolrun.Result{}, err
		}
		ans := "Unanswered"
		if len(got) > 0 {
			ans = strings.Join(got, ", ")
		}
		if _, seen := answers[q.Question]; !seen {
			keys = append(keys, q.Question)
		}
		answers[q.Question] = ans
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = `"` + k + `"="` + answers[k] + `"`
	}
	text := "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind."
	return toolrun.TextResult(text, struct {
		Questions []ccQuestion   `json:"questions"`
		Answers   orderedStrings `json:"answers"`
	}{a.Questions, orderedStrings{keys, answers}}), nil
}

// orderedStrings marshals a string map in insertion order (a JavaScript
// object's key order).
type orderedStrings struct {
	keys []string
	m    map[string]string
}

func (o orderedStrings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(o.m[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// seedBashArgs are the arguments of claude-code's Bash and opencode's bash.
type seedBashArgs struct {
	Command     string   `json:"command"`
	Timeout     *float64 `json:"timeout"`
	Description *string  `json:"description"`
	Workdir     *string  `json:"workdir"`
	Unsandboxed *bool    `json:"dangerouslyDisableSandbox"`
}

// bashStructured is both toolsets' structured Bash result: the exit code
// (null when killed) and the complete merged output.
type bashStructured struct {
	ExitCode *int   `json:"exitCode"`
	Output   string `json:"output"`
}

// seedBash runs a command for Bash or bash: the timeout check (ms, default
// 120000, at most 600000), the working directory, the sandbox plan or an
// approved escalation, then the shared runner. It returns the output and
// the complete output for the structured result.
func seedBash(ctx context.Context, inv *toolrun.Invocation, tool string, a seedBashArgs) (BashOutput, float64, string, error) {
	s := inv.Session
	ms := float64(DefaultBashTimeout / time.Millisecond)
	if a.Timeout != nil {
		ms = *a.Timeout
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms <= 0 || ms > float64(MaxBashTimeout/time.Millisecond) {
		return BashOutput{}, 0, "", errors.New("timeout must be between 1 and 600000 milliseconds")
	}
	dir := s.Cwd
	if a.Workdir != nil && *a.Workdir != "" {
		dir = resolvePath(s.Cwd, *a.Workdir)
	}
	var plan *sandbox.Plan
	if a.Unsandboxed != nil && *a.Unsandboxed {
		esc, err := Escalate(ctx, s, tool, a.Command)
		if err != nil {
			return BashOutput{}, 0, "", err
		}
		plan = esc.Plan
	} else {
		p, err := BashPlan(s)
		if err != nil {
			return BashOutput{}, 0, "", err
		}
		plan = p
	}
	inv.Progress(toolrun.Result{Content: []llm.Content{}})
	out, err := RunBash(ctx, BashRun{Command: a.Command, Dir: dir, Timeout: time.Duration(ms * float64(time.Millisecond)),
		Plan: plan, SpillDir: spillDir(s), Progress: func(tail string) {
			t := TruncateTail(tail, MaxLines, MaxBytes)
			inv.Progress(toolrun.Result{Content: []llm.Content{llm.TextBlock(t.Content)}})
		}})
	if err != nil {
		return BashOutput{}, 0, "", err
	}
	full := out.Output
	if out.FullOutputPath != "" && out.Truncation.Truncated {
		if b, err := os.ReadFile(out.FullOutputPath); err == nil {
			full = DecodeUTF8(b)
		}
	}
	return out, ms, full, nil
}

// ccBashTruncation appends the truncation note of a truncated output.
func ccBashTruncation(text string, out BashOutput) string {
	t := out.Truncation
	if !t.Truncated || out.FullOutputPath == "" {
		return text
	}
	start, end := t.TotalLines-t.OutputLines+1, t.TotalLines
	switch {
	case t.LastLinePartial:
		return text + "\n\n[Showing last " + FormatSize(t.OutputBytes) + " of line " + strconv.Itoa(end) + " (line is " + FormatSize(out.LastLineBytes) + "). Full output: " + out.FullOutputPath + "]"
	case t.TruncatedBy != nil && *t.TruncatedBy == "lines":
		return text + "\n\n[Showing lines " + strconv.Itoa(start) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(t.TotalLines) + ". Full output: " + out.FullOutputPath + "]"
	}
	return text + "\n\n[Showing lines " + strconv.Itoa(start) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(t.TotalLines) + " (" + FormatSize(MaxBytes) + " limit). Full output: " + out.FullOutputPath + "]"
}

// ccBashError is Claude Code's formatError: `Exit code <n>` and the full
// output; past 10 000 characters the first and last 5000 around a note.
func ccBashError(code int, output string) string {
	full := "Exit code " + strconv.Itoa(code)
	if output != "" {
		full += "\n" + output
	}
	units := utf16.Encode([]rune(full))
	if len(units) <= 10000 {
		return full
	}
	return string(utf16.Decode(units[:5000])) + "\n\n... [" + strconv.Itoa(len(units)-10000) + " characters truncated] ...\n\n" + string(utf16.Decode(units[len(units)-5000:]))
}

func ccBash(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a seedBashArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	out, ms, full, err := seedBash(ctx, inv, "Bash", a)
	if err != nil {
		return toolrun.Result{}, err
	}
	structured := toolrun.MustJSON(bashStructured{out.ExitCode, full})
	keep := out.Truncation.Truncated
	defer func() {
		if !keep && out.FullOutputPath != "" {
			os.Remove(out.FullOutputPath)
		}
	}()
	fail := func(msg string) (toolrun.Result, error) {
		r := toolrun.ErrorResult(msg)
		r.Structured = structured
		return r, nil
	}
	switch {
	case out.Aborted:
		return fail(appendStatus(ccBashTruncation(out.Output, out), "Command aborted"))
	case out.TimedOut:
		return fail(appendStatus(ccBashTruncation(out.Output, out), "Command timed out after "+jsNumber(ms)+" milliseconds"))
	case out.ExitCode != nil && *out.ExitCode != 0:
		return fail(ccBashError(*out.ExitCode, full))
	}
	text := out.Output
	if text == "" {
		text = "(no output)"
	}
	r := toolrun.TextResult(ccBashTruncation(text, out), nil)
	if keep && out.FullOutputPath != "" {
		r.Details = toolrun.MustJSON(struct {
			Truncation     Truncation `json:"truncation"`
			FullOutputPath string     `json:"fullOutputPath"`
		}{out.Truncation, out.FullOutputPath})
	}
	r.Structured = structured
	return r, nil
}

// globParams are the parameters of both toolsets' glob tools.
type globParams struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
}

// textTool is a tool whose whole result is one text computed from its decoded parameters.
func textTool[P any](run func(ctx context.Context, cwd string, p *P) (string, error)) toolrun.Impl {
	return toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var p P
		if err := inv.Decode(&p); err != nil {
			return toolrun.Result{}, err
		}
		text, err := run(ctx, inv.Session.Cwd, &p)
		if err != nil {
			return toolrun.Result{}, err
		}
		return toolrun.TextResult(text, nil), nil
	}}
}
