package tools

// The claude-code file toolset (Read Edit Write Grep Glob Bash TodoWrite
// AskUserQuestion): model-visible texts, limits and formats as the seed's
// src/claude-code/*.ts (runtime-behaviour.md §1.2).

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
