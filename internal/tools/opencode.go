package tools

// The opencode file toolset (read edit write grep glob bash todowrite
// question): model-visible texts, limits and formats as the seed's
// src/opencode/*.ts (runtime-behaviour.md §1.3).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

const (
	ocMaxLines      = 2000
	ocMaxBytes      = 50 << 10
	ocMaxLineLength = 2000
	ocLineSuffix    = "... (line truncated to 2000 chars)"
)

// ocBinaryExts are the extensions opencode's read refuses without looking.
var ocBinaryExts = map[string]bool{
	".zip": true, ".tar": true, ".gz": true, ".exe": true, ".dll": true, ".so": true,
	".class": true, ".jar": true, ".war": true, ".7z": true, ".doc": true, ".docx": true,
	".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true, ".odt": true, ".ods": true,
	".odp": true, ".bin": true, ".dat": true, ".obj": true, ".o": true, ".a": true,
	".lib": true, ".wasm": true, ".pyc": true, ".pyo": true,
}

// ocBinaryExt reports a path whose last extension (from the last dot of
// the whole path, as the seed does) is in ocBinaryExts.
func ocBinaryExt(path string) bool {
	i := strings.LastIndexByte(path, '.')
	return i >= 0 && ocBinaryExts[strings.ToLower(path[i:])]
}

// ocImageMime detects an image by its first bytes: jpeg, png, gif, webp and
// bmp (bmp is detected so that it is not read as text, but not supported).
func ocImageMime(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff:
		return "image/jpeg"
	case len(b) >= 8 && string(b[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(b) >= 3 && string(b[:3]) == "GIF":
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) >= 30 && string(b[:2]) == "BM" && b[28] == 1 && strings.IndexByte("\x01\x04\x08\x10\x18\x20", b[29]) >= 0:
		return "image/bmp"
	}
	return ""
}

// ocSupportedImage reports the image types read returns as images.
func ocSupportedImage(mime string) bool {
	return mime == "image/jpeg" || mime == "image/png" || mime == "image/gif" || mime == "image/webp"
}

// ocDidYouMean lists up to three entries of the path's directory whose
// lower-cased name contains the requested name or is contained in it.
func ocDidYouMean(path string) string {
	dir, base := filepath.Dir(path), strings.ToLower(filepath.Base(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var out []string
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		if strings.Contains(name, base) || strings.Contains(base, name) {
			out = append(out, filepath.Join(dir, e.Name()))
			if len(out) == 3 {
				break
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "\n\nDid you mean one of these?\n" + strings.Join(out, "\n")
}

// localeLessCased orders names as JavaScript's a.localeCompare(b) in an
// English locale (ICU's root collation), case included: the primary and
// accent levels of collateKey, then case, lower before upper, at the first
// character where the two differ only by case.
func localeLessCased(a, b string) bool {
	pa, sa := collateKey(a)
	pb, sb := collateKey(b)
	for _, p := range [][]int{pa, pb} {
		for i, v := range p {
			if v == 1000+'\t' { // a tab sorts just before a space
				p[i] = 0
			}
		}
	}
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	if sa != sb {
		return sa < sb
	}
	ra, rb := []rune(norm.NFD.String(a)), []rune(norm.NFD.String(b))
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ua, ub := unicode.IsUpper(ra[i]), unicode.IsUpper(rb[i])
		if ua != ub {
			return ub
		}
	}
	return len(ra) < len(rb)
}

// localeSort sorts names as JavaScript's localeCompare does.
func localeSort(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return localeLessCased(names[i], names[j]) })
}

// ocDirEntries lists a directory for read: names, "/" after directories
// (symlinks followed), in locale order.
func ocDirEntries(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	localeSort(out)
	return out, nil
}

// ocReadDir renders a directory listing page. offset 0 counts as 1.
func ocReadDir(abs string, entries []string, offset, limit int) string {
	if offset <= 0 {
		offset = 1
	}
	start := min(offset-1, len(entries))
	end := min(start+limit, len(entries))
	sliced := entries[start:end]
	var b strings.Builder
	b.WriteString("<path>" + abs + "</path>\n<type>directory</type>\n<entries>\n")
	b.WriteString(strings.Join(sliced, "\n"))
	if end < len(entries) {
		fmt.Fprintf(&b, "\n(Showing %d of %d entries. Use 'offset' parameter to read beyond entry %d)", len(sliced), len(entries), offset+len(sliced))
	} else {
		fmt.Fprintf(&b, "\n(%d entries)", len(entries))
	}
	b.WriteString("\n</entries>")
	return b.String()
}

// ocSplitLines splits text as readline does: LF, CRLF and CR each end a
// line, and a final terminator does not start another line.
func ocSplitLines(text string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, text[start:i])
			start = i + 1
		case '\r':
			lines = append(lines, text[start:i])
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(text) {
		lines = append(lines, text[start:])
	}
	return lines
}

// cutUTF16 cuts s to at most n UTF-16 code units, never inside a character.
func cutUTF16(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i], true
		}
		units += w
	}
	return s, false
}

// ocReadFile renders a text file page for read. offset 0 counts as 1; a
// negative offset counts from the end. The error is the thrown range text.
func ocReadFile(abs, text string, offset int, limit int) (string, error) {
	lines := ocSplitLines(text)
	total := len(lines)
	if offset == 0 {
		offset = 1
	}
	if offset < 0 {
		offset = max(1, total+offset+1)
	}
	if total < offset && !(total == 0 && offset == 1) {
		return "", fmt.Errorf("Offset %d is out of range for this file (%d lines)", offset, total)
	}
	start := offset - 1
	var out []string
	bytesOut := 0
	by := ""
	for _, raw := range lines[start:] {
		if len(out) >= limit {
			by = "lines"
			break
		}
		line := raw
		if cut, ok := cutUTF16(raw, ocMaxLineLength); ok {
			line = cut + ocLineSuffix
		}
		n := len(line)
		if len(out) > 0 {
			n++
		}
		if bytesOut+n > ocMaxBytes {
			by = "bytes"
			break
		}
		out = append(out, line)
		bytesOut += n
	}
	var b strings.Builder
	b.WriteString("<path>" + abs + "</path>\n<type>file</type>\n<content>\n")
	for i, l := range out {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(offset + i))
		b.WriteString(": ")
		b.WriteString(l)
	}
	last := offset + len(out) - 1
	switch by {
	case "bytes":
		fmt.Fprintf(&b, "\n\n(Output capped at 50 KB. Showing lines %d-%d. Use offset=%d to continue.)", offset, last, last+1)
	case "lines":
		fmt.Fprintf(&b, "\n\n(Showing lines %d-%d of %d. Use offset=%d to continue.)", offset, last, total, last+1)
	default:
		fmt.Fprintf(&b, "\n\n(End of file - total %d lines)", total)
	}
	b.WriteString("\n</content>")
	return b.String(), nil
}

const (
	ocRGLimit      = 100
	ocRecordBytes  = 64 << 10
	ocStderrBytes  = 8 << 10
	ocGrepLineMax  = 2000
	ocGlobTruncMsg = "(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
)

// streamRG runs ripgrep in dir, hands each stdout line to parse, and kills
// it once more than limit items were parsed. It returns the items (at most
// limit) and whether there were more.
func streamRG[T any](ctx context.Context, dir string, args []string, limit int, parse func([]byte) (T, bool, error)) ([]T, bool, error) {
	bin, err := exec.LookPath("rg")
	if err != nil {
		return nil, false, errNoRG
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	stderr := &capBuffer{buf: &bytes.Buffer{}, max: ocStderrBytes}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	var (
		items     []T
		truncated bool
		perr      error
	)
	r := bufio.NewReaderSize(out, 64<<10)
	for {
		line, rerr := r.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			// A record longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for rerr == bufio.ErrBufferFull {
				line, rerr = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if rerr != nil && rerr != bufio.ErrBufferFull {
			break // EOF: a partial last record is dropped, as the seed does
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		item, ok, err := parse(line)
		if err != nil {
			perr = err
			break
		}
		if !ok {
			continue
		}
		items = append(items, item)
		if len(items) > limit {
			truncated = true
			break
		}
	}
	if truncated || perr != nil {
		cancel()
	}
	werr := cmd.Wait()
	if perr != nil {
		return nil, false, perr
	}
	if truncated {
		return items[:limit], true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	code := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return nil, false, werr
		}
		code = ee.ExitCode()
	}
	msg := strings.TrimSpace(stderr.buf.String())
	switch {
	case code == 2 && (strings.Contains(msg, "regex parse error") || strings.Contains(msg, "error parsing regex")):
		return nil, false, errors.New("Invalid pattern: " + msg)
	case code == 1:
		return nil, false, nil
	case code != 0 && code != 2:
		if msg == "" {
			msg = fmt.Sprintf("ripgrep exited with code %d", code)
		}
		return nil, false, errors.New(msg)
	}
	return items, false, nil
}

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
			Path       rgText `json:"path"`
			Lines      rgText `json:"lines"`
			LineNumber *int   `json:"line_number"`
		} `json:"data"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return ocMatch{}, false, errors.New("Invalid ripgrep JSON output")
	}
	if rec.Type != "match" {
		return ocMatch{}, false, nil
	}
	path, ok1 := rec.Data.Path.str()
	text, ok2 := rec.Data.Lines.str()
	if !ok1 || !ok2 || rec.Data.LineNumber == nil {
		return ocMatch{}, false, errors.New("Invalid ripgrep JSON output")
	}
	text = strings.TrimRight(text, "\r\n")
	if cut, ok := cutUTF16(text, ocGrepLineMax); ok {
		text = cut + "..."
	}
	return ocMatch{path: strings.TrimPrefix(path, "./"), line: *rec.Data.LineNumber, text: text}, true, nil
}

// ocGrepArgs is grep's ripgrep command line. --sort=path is pigo's: it
// makes the first 100 matches the same on every run.
func ocGrepArgs(pattern, include, target string) []string {
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

// ocGrep is opencode's grep.
func ocGrep(ctx context.Context, cwd, pattern string, path, include *string) (string, error) {
	if pattern == "" {
		return "", errors.New("pattern is required")
	}
	req := cwd
	if path != nil && *path != "" {
		req = resolvePath(cwd, *path)
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
	matches, truncated, err := streamRG(ctx, dir, ocGrepArgs(pattern, inc, target), ocRGLimit, parseGrepRecord)
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

// ocGlobArgs is glob's ripgrep command line (see ocGrepArgs for --sort).
func ocGlobArgs(pattern string) []string {
	return []string{"--no-config", "--files", "--sort=path", "--glob=" + pattern, "--glob=!**/.git/**", "."}
}

// ocGlob is opencode's glob.
func ocGlob(ctx context.Context, cwd, pattern string, path *string) (string, error) {
	search := cwd
	if path != nil {
		search = resolvePath(cwd, *path)
	}
	st, err := os.Stat(search)
	if errors.Is(err, os.ErrNotExist) {
		shown := search
		if path != nil {
			shown = *path
		}
		return "", errors.New("Directory does not exist: " + shown + ". Note: your current working directory is " + cwd + "." + ocDidYouMean(search))
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", errors.New("glob path must be a directory: " + search)
	}
	files, truncated, err := streamRG(ctx, search, ocGlobArgs(pattern), ocRGLimit, func(l []byte) (string, bool, error) {
		return filepath.Join(search, strings.TrimPrefix(string(l), "./")), true, nil
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "No files found", nil
	}
	if truncated {
		files = append(files, "", ocGlobTruncMsg)
	}
	return strings.Join(files, "\n"), nil
}

func init() {
	Register("opencode", "read", toolrun.Impl{Execute: ocRead})
	Register("opencode", "edit", toolrun.Impl{Execute: ocEdit})
	Register("opencode", "write", toolrun.Impl{Execute: ocWrite})
	Register("opencode", "grep", textTool(func(ctx context.Context, cwd string, p *ocGrepParams) (string, error) {
		return ocGrep(ctx, cwd, p.Pattern, p.Path, p.Include)
	}))
	Register("opencode", "glob", textTool(func(ctx context.Context, cwd string, p *globParams) (string, error) {
		return ocGlob(ctx, cwd, p.Pattern, p.Path)
	}))
	Register("opencode", "bash", toolrun.Impl{Execute: ocBash})
	Register("opencode", "todowrite", toolrun.Impl{Execute: ocTodoWrite})
	Register("opencode", "question", toolrun.Impl{Execute: ocQuestion, Sequential: true})
}

// returned is a text result the seed returns (not throws) for a failure,
// so it is not an error result.
func returned(text string) toolrun.Result { return toolrun.TextResult(text, nil) }

func ocRead(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath string   `json:"filePath"`
		Offset   *float64 `json:"offset"`
		Limit    *float64 `json:"limit"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(errAborted)
	}
	s := inv.Session
	abs := resolvePath(s.Cwd, a.FilePath)
	offset, limit := 0, ocMaxLines
	if a.Offset != nil {
		offset = int(*a.Offset)
	}
	if a.Limit != nil {
		limit = int(*a.Limit)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return returned("File not found: " + abs + ocDidYouMean(abs)), nil
	}
	if st.IsDir() {
		entries, err := ocDirEntries(abs)
		if err != nil {
			return toolrun.Result{}, NodeError(err, "scandir", abs)
		}
		return returned(ocReadDir(abs, entries, offset, limit)), nil
	}
	data, err := safefile.ReadRegular(abs, toolrun.MaxWholeFile, "read")
	var refused *safefile.Refusal
	if errors.As(err, &refused) {
		return toolrun.Result{}, err
	}
	if err != nil {
		return returned("File not readable: " + abs), nil
	}
	reads := s.Reads("opencode")
	if mime := ocImageMime(data[:min(len(data), sampleBytes)]); ocSupportedImage(mime) {
		rec := reads.Record(abs, data, false)
		return toolrun.Result{
			Content: []llm.Content{llm.TextBlock("Image read successfully"),
				{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}},
			Details: toolrun.MustJSON(readsDetails{rec}),
		}, nil
	}
	if ocBinaryExt(abs) || isBinarySample(data[:min(len(data), sampleBytes)]) {
		return returned("Cannot read binary file: " + abs), nil
	}
	text, err := ocReadFile(abs, DecodeUTF8(data), offset, limit)
	if err != nil {
		return toolrun.Result{}, err
	}
	rec := reads.Record(abs, data, true)
	return toolrun.TextResult(withDiagnostics(ctx, s, text, abs, data), readsDetails{rec}), nil
}

func ocEdit(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath   string `json:"filePath"`
		OldString  string `json:"oldString"`
		NewString  string `json:"newString"`
		ReplaceAll *bool  `json:"replaceAll"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	abs := resolvePath(s.Cwd, a.FilePath)
	if a.OldString == a.NewString {
		return toolrun.Result{}, errEditIdentical
	}
	fw := toolrun.FileWrite{Tool: "edit", Path: abs, Reads: "opencode", Check: toolrun.Strict, Diagnose: true,
		ReadError: func(err error) error {
			if errors.Is(err, syscall.EISDIR) {
				return errors.New("Path is a directory, not a file: " + abs)
			}
			return fmt.Errorf("Could not edit file: %s. Error code: %s.", a.FilePath, nodeCodeOr(err))
		}}
	if a.OldString == "" {
		fw.Check = toolrun.NoCheck
		fw.ReadError = func(error) error { return errEditEmptyOld }
		fw.Update = func(_ []byte, exists bool) ([]byte, error) {
			if exists {
				return nil, errEditEmptyOld
			}
			return []byte(a.NewString), nil
		}
	} else {
		fw.Update = func(old []byte, exists bool) ([]byte, error) {
			if !exists {
				return nil, errors.New("File " + abs + " not found")
			}
			ed, err := ApplyEdit(string(old), a.OldString, a.NewString, a.ReplaceAll != nil && *a.ReplaceAll)
			if err != nil {
				return nil, err
			}
			return []byte(ed.Final), nil
		}
	}
	w, err := s.WriteFile(ctx, fw)
	if err != nil {
		return toolrun.Result{}, fsError(err)
	}
	var old []byte
	if a.OldString != "" {
		old = w.Old
	}
	return toolrun.TextResult(AppendDiagnostics("Edit applied successfully.", w.Diagnostics), newEditDetails(abs, old, w.New, w.Reads)), nil
}

// nodeCodeOr is err's Node error code, or "UNKNOWN".
func nodeCodeOr(err error) string {
	if c := nodeCode(err); c != "" {
		return c
	}
	return "UNKNOWN"
}

func ocWrite(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		FilePath string `json:"filePath"`
		Content  string `json:"content"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	abs := resolvePath(s.Cwd, a.FilePath)
	w, err := s.WriteFile(ctx, toolrun.FileWrite{Tool: "write", Path: abs, Reads: "opencode", Check: toolrun.Lenient, Diagnose: true,
		ReadError: fsError,
		Update: func(old []byte, _ bool) ([]byte, error) {
			srcBOM, _ := stripBOM(string(old))
			nextBOM, text := stripBOM(a.Content)
			b := srcBOM
			if b == "" {
				b = nextBOM
			}
			return []byte(b + text), nil
		}})
	if err != nil {
		return toolrun.Result{}, fsError(err)
	}
	return toolrun.TextResult(AppendDiagnostics("Wrote file successfully.", w.Diagnostics), readsDetails{w.Reads}), nil
}

// ocTodo is one todowrite item.
type ocTodo struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

var ocTodoMarks = map[string]string{"pending": " ", "in_progress": ">", "completed": "x", "cancelled": "-"}

// OCTodoWidget is the widget the chat draws for a todowrite result's
// details: one "- [m] content" line per item, the mark m being " ", ">",
// "x" or "-" by status and the priority in backquotes after it; nil when
// the list is empty.
func OCTodoWidget(details json.RawMessage) []string {
	var d struct {
		Todos []ocTodo `json:"todos"`
	}
	if json.Unmarshal(details, &d) != nil {
		return nil
	}
	return ocTodoLines(d.Todos)
}

// ocTodoLines are the lines of a todowrite list (nil when empty).
func ocTodoLines(todos []ocTodo) []string {
	if len(todos) == 0 {
		return nil
	}
	out := make([]string, len(todos))
	for i, t := range todos {
		out[i] = "- [" + ocTodoMarks[t.Status] + "] " + t.Content + " `" + t.Priority + "`"
	}
	return out
}

func ocTodoMarkdown(todos []ocTodo) string {
	open := 0
	for _, t := range todos {
		if t.Status != "completed" {
			open++
		}
	}
	lines := []string{"## Tasks", "", fmt.Sprintf("**%d open · %d total**", open, len(todos))}
	if len(todos) == 0 {
		return strings.Join(append(lines, "", "_No todos_"), "\n")
	}
	return strings.Join(append(append(lines, ""), ocTodoLines(todos)...), "\n")
}

func ocTodoWrite(_ context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Todos []ocTodo `json:"todos"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	todos := make([]ocTodo, len(a.Todos))
	for i, t := range a.Todos {
		todos[i] = ocTodo{Content: jsTrim(t.Content), Status: t.Status, Priority: t.Priority}
	}
	text, err := jsonIndent(todos)
	if err != nil {
		return toolrun.Result{}, err
	}
	type pendant struct {
		Markdown string `json:"markdown"`
	}
	return toolrun.TextResult(text, struct {
		Todos   []ocTodo `json:"todos"`
		Pendant pendant  `json:"pendant"`
	}{todos, pendant{ocTodoMarkdown(todos)}}), nil
}

// jsonIndent is JSON.stringify(v, null, 2).
func jsonIndent(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

type ocQuestionIn struct {
	Question string           `json:"question"`
	Header   string           `json:"header"`
	Options  []QuestionOption `json:"options"`
	Multiple bool             `json:"multiple"`
}

func ocQuestion(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Questions []ocQuestionIn `json:"questions"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	const noUI = "Cannot ask questions: interactive UI is not available in this mode"
	if !inv.Session.CanAsk() {
		return toolrun.Result{}, errors.New(noUI)
	}
	qs := make([]ocQuestionIn, len(a.Questions))
	for i, q := range a.Questions {
		opts := make([]QuestionOption, len(q.Options))
		for j, o := range q.Options {
			opts[j] = QuestionOption{Label: jsTrim(o.Label), Description: jsTrim(o.Description)}
		}
		qs[i] = ocQuestionIn{Question: jsTrim(q.Question), Header: jsTrim(q.Header), Options: opts, Multiple: q.Multiple}
	}
	answers := make([][]string, len(qs))
	parts := make([]string, len(qs))
	for i, q := range qs {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(errAborted)
		}
		title := q.Question
		if q.Header != "" {
			title = q.Header + ": " + q.Question
		}
		got, err := ask(ctx, inv.Session, "question", Question{Title: title, Question: q.Question, Header: q.Header, Options: q.Options,
			Multiple: q.Multiple, Other: "Type your own answer.", Done: "✓ Done", InputPrompt: "Type your answer…"}, noUI)
		if err != nil {
			return toolrun.Result{}, err
		}
		if got == nil {
			got = []string{}
		}
		answers[i] = got
		ans := "Unanswered"
		if len(got) > 0 {
			ans = strings.Join(got, ", ")
		}
		parts[i] = `"` + q.Question + `"="` + ans + `"`
	}
	text := "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind."
	return toolrun.TextResult(text, struct {
		Questions []ocQuestionIn `json:"questions"`
		Answers   [][]string     `json:"answers"`
	}{qs, answers}), nil
}

func ocBash(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a seedBashArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	a.Description = nil
	out, ms, full, err := seedBash(ctx, inv, "bash", a)
	if err != nil {
		return toolrun.Result{}, err
	}
	structured := toolrun.MustJSON(bashStructured{out.ExitCode, full})
	if out.Aborted {
		r := toolrun.ErrorResult(appendStatus(ccBashTruncation(out.Output, out), "Command aborted"))
		r.Structured = structured
		return r, nil
	}
	if out.TimedOut {
		return toolrun.Result{Content: []llm.Content{
			llm.TextBlock("Command exceeded timeout of " + jsNumber(ms) + " ms. Retry with a larger timeout if the command is expected to take longer."),
			llm.TextBlock("Command timed out before completion."),
		}, Details: json.RawMessage(`{"timeout":true}`), Structured: structured}, nil
	}
	text := out.Output
	if text == "" {
		text = "(no output)"
	}
	if out.Truncation.Truncated {
		text += "\n\n[output capture truncated at the in-memory safety limit]"
		if out.FullOutputPath != "" {
			text += "\nFull output: " + out.FullOutputPath
		}
	}
	code := "null"
	if out.ExitCode != nil {
		code = strconv.Itoa(*out.ExitCode)
	}
	details := struct {
		ExitCode       *int   `json:"exitCode"`
		Truncated      bool   `json:"truncated"`
		FullOutputPath string `json:"fullOutputPath,omitempty"`
	}{out.ExitCode, out.Truncation.Truncated, out.FullOutputPath}
	return toolrun.Result{Content: []llm.Content{llm.TextBlock(text), llm.TextBlock("Command exited with code " + code + ".")},
		Details: toolrun.MustJSON(details), Structured: structured}, nil
}

// ocGrepParams are opencode grep's parameters.
type ocGrepParams struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
	Include *string `json:"include"`
}
