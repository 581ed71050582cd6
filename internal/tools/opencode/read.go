package opencode

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
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

// LocaleSort sorts names as JavaScript's localeCompare does.
func LocaleSort(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return toolkit.LocaleLessCased(names[i], names[j]) })
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
	LocaleSort(out)
	return out, nil
}

// ReadDir renders a directory listing page. offset 0 counts as 1.
func ReadDir(abs string, entries []string, offset, limit int) string {
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

// SplitLines splits text as readline does: LF, CRLF and CR each end a
// line, and a final terminator does not start another line.
func SplitLines(text string) []string {
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

// ReadFile renders a text file page for read. offset 0 counts as 1; a
// negative offset counts from the end. The error is the thrown range text.
func ReadFile(abs, text string, offset int, limit int) (string, error) {
	lines := SplitLines(text)
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
		if cut, ok := toolkit.CutUTF16(raw, ocMaxLineLength); ok {
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
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	s := inv.Session
	abs := toolkit.AbsPath(s.Cwd, a.FilePath)
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
			return toolrun.Result{}, toolkit.NodeError(err, "scandir", abs)
		}
		return returned(ReadDir(abs, entries, offset, limit)), nil
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
	if mime := ocImageMime(data[:min(len(data), toolkit.SampleBytes)]); ocSupportedImage(mime) {
		rec := reads.Record(abs, data, false)
		return toolrun.Result{
			Content: []llm.Content{llm.TextBlock("Image read successfully"),
				{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}},
			Details: toolrun.MustJSON(toolkit.ReadsDetails{Reads: rec}),
		}, nil
	}
	if ocBinaryExt(abs) || toolkit.IsBinarySample(data[:min(len(data), toolkit.SampleBytes)]) {
		return returned("Cannot read binary file: " + abs), nil
	}
	text, err := ReadFile(abs, toolkit.DecodeUTF8(data), offset, limit)
	if err != nil {
		return toolrun.Result{}, err
	}
	rec := reads.Record(abs, data, true)
	return toolrun.TextResult(toolkit.WithDiagnostics(ctx, s, text, abs, data), toolkit.ReadsDetails{Reads: rec}), nil
}
