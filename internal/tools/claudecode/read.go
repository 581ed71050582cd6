package claudecode

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ccImageMimes are the image types claude-code's Read recognises, by extension.
var ccImageMimes = map[string]string{
	".gif": "image/gif", ".jpeg": "image/jpeg", ".jpg": "image/jpeg",
	".png": "image/png", ".webp": "image/webp",
}

// ccCapTail ends both of Read's size refusals.
const ccCapTail = " Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file."

// ccSplitLines splits a file as claude-code's Read does: BOM stripped, a
// final "\n" added to a non-empty text before splitting (so the count is one
// more than an editor shows), and a trailing "\r" dropped from each line.
func ccSplitLines(text string) []string {
	text = strings.TrimPrefix(text, toolkit.Bom)
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

// FormatRead renders a text file for Read: `<n>: <line>` joined by "\n".
// offset nil reads from line 1; 0 reads from the first line numbered 0; a
// negative offset starts that many real lines before the end (the phantom
// last line is not counted). limit nil reads to the end.
func FormatRead(text string, offset, limit *int) string {
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
	if limit == nil && len(data) > toolkit.MaxReadBytes {
		return "", fmt.Errorf("File content (%s) exceeds maximum allowed size (%s).%s", FileSize(int64(len(data))), FileSize(toolkit.MaxReadBytes), ccCapTail)
	}
	out := FormatRead(string(data), offset, limit)
	if tokens := (toolkit.Utf16Len(out) + 3) / 4; tokens > toolkit.MaxReadTokens {
		return "", fmt.Errorf("File content (%d tokens) exceeds maximum allowed tokens (%d).%s", tokens, toolkit.MaxReadTokens, ccCapTail)
	}
	return out, nil
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
	path := toolkit.AbsPath(s.Cwd, a.FilePath)
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return toolrun.Result{}, ccNotFound("File does not exist", path, s.Cwd)
	}
	if err != nil {
		return toolrun.Result{}, toolkit.NodeError(err, "stat", path)
	}
	if st.IsDir() {
		return toolrun.Result{}, errors.New("EISDIR: illegal operation on a directory, read '" + path + "'")
	}
	if !st.Mode().IsRegular() {
		return toolrun.Result{}, errors.New("File not found: " + path)
	}
	ext := strings.ToLower(filepath.Ext(path))
	pages := ""
	if a.Pages != nil {
		pages = *a.Pages
	}
	if ext == ".pdf" {
		return ccReadPDF(ctx, inv, path, st.Size(), pages)
	}
	if strings.TrimSpace(pages) != "" {
		return toolrun.Result{}, errors.New("The pages parameter applies to PDF files only; use offset and limit for other files.")
	}
	_, isImage := ccImageMimes[ext]
	if !isImage && limit == nil && st.Size() > toolkit.MaxReadBytes {
		// Refused from the size on disk, after the binary check of the
		// first bytes as the seed orders them: a huge file is never loaded.
		if head, err := readHead(path, toolkit.SampleBytes); err == nil && toolkit.IsBinarySample(head) {
			return toolrun.Result{}, errors.New("Cannot read binary file: " + path)
		}
		return toolrun.Result{}, fmt.Errorf("File content (%s) exceeds maximum allowed size (%s).%s", FileSize(st.Size()), FileSize(toolkit.MaxReadBytes), ccCapTail)
	}
	data, err := toolkit.ReadWhole(path, "Read")
	if err != nil {
		return toolrun.Result{}, err
	}
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	reads := s.Reads("claude-code")
	if mime, ok := ccImageMimes[ext]; ok {
		rec := reads.Record(path, data, false)
		return toolrun.Result{
			Content: []llm.Content{llm.TextBlock("Read image file [" + mime + "]"),
				{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}},
			Details: toolrun.MustJSON(toolkit.ReadsDetails{Reads: rec}),
		}, nil
	}
	if toolkit.IsBinarySample(data[:min(len(data), toolkit.SampleBytes)]) {
		return toolrun.Result{}, errors.New("Cannot read binary file: " + path)
	}
	text, err := ccReadText([]byte(toolkit.DecodeUTF8(data)), offset, limit)
	if err != nil {
		return toolrun.Result{}, err
	}
	rec := reads.Record(path, data, true)
	text = toolkit.WithDiagnostics(ctx, s, text, path, data)
	return toolrun.TextResult(text, toolkit.ReadsDetails{Reads: rec}), nil
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
