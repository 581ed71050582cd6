package toolkit

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// pi's shared output limits (pi-coding-agent core/tools/truncate.js).
const (
	MaxLines         = 2000
	MaxBytes         = 50 * 1024
	GrepMaxLineChars = 500
)

// Truncation is pi's TruncationResult; it goes into details.truncation as is.
type Truncation struct {
	Content               string  `json:"content"`
	Truncated             bool    `json:"truncated"`
	TruncatedBy           *string `json:"truncatedBy"`
	TotalLines            int     `json:"totalLines"`
	TotalBytes            int     `json:"totalBytes"`
	OutputLines           int     `json:"outputLines"`
	OutputBytes           int     `json:"outputBytes"`
	LastLinePartial       bool    `json:"lastLinePartial"`
	FirstLineExceedsLimit bool    `json:"firstLineExceedsLimit"`
	MaxLines              int     `json:"maxLines"`
	MaxBytes              int     `json:"maxBytes"`
}

func by(s string) *string { return &s }

// FormatSize is pi's formatSize: 512B, 1.5KB, 2.0MB.
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}

// countLines is pi's splitLinesForCounting: a trailing newline does not start a line.
func countLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TruncateHead keeps the first maxLines lines / maxBytes bytes, never a partial line.
func TruncateHead(content string, maxLines, maxBytes int) Truncation {
	total := len(content)
	lines := countLines(content)
	t := Truncation{TotalLines: len(lines), TotalBytes: total, MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && total <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, len(lines), total
		return t
	}
	t.Truncated = true
	if len(lines[0]) > maxBytes {
		t.TruncatedBy, t.FirstLineExceedsLimit = by("bytes"), true
		return t
	}
	n, size := 0, 0
	reason := "lines"
	for i := 0; i < len(lines) && i < maxLines; i++ {
		b := len(lines[i])
		if i > 0 {
			b++
		}
		if size+b > maxBytes {
			reason = "bytes"
			break
		}
		n++
		size += b
	}
	if n >= maxLines && size <= maxBytes {
		reason = "lines"
	}
	t.TruncatedBy = by(reason)
	t.Content = strings.Join(lines[:n], "\n")
	t.OutputLines, t.OutputBytes = n, len(t.Content)
	return t
}

// TruncateTail keeps the last maxLines lines / maxBytes bytes; when the last line alone is
// too long its end is kept (lastLinePartial).
func TruncateTail(content string, maxLines, maxBytes int) Truncation {
	total := len(content)
	lines := countLines(content)
	t := Truncation{TotalLines: len(lines), TotalBytes: total, MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && total <= maxBytes {
		t.Content, t.OutputLines, t.OutputBytes = content, len(lines), total
		return t
	}
	t.Truncated = true
	var out []string
	size := 0
	reason := "lines"
	for i := len(lines) - 1; i >= 0 && len(out) < maxLines; i-- {
		b := len(lines[i])
		if len(out) > 0 {
			b++
		}
		if size+b > maxBytes {
			reason = "bytes"
			if len(out) == 0 {
				part := tailBytes(lines[i], maxBytes)
				out = append(out, part)
				size = len(part)
				t.LastLinePartial = true
			}
			break
		}
		out = append(out, lines[i])
		size += b
	}
	if len(out) >= maxLines && size <= maxBytes {
		reason = "lines"
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	t.TruncatedBy = by(reason)
	t.Content = strings.Join(out, "\n")
	t.OutputLines, t.OutputBytes = len(out), len(t.Content)
	return t
}

// tailBytes keeps the last maxBytes bytes of s, starting on a character boundary.
func tailBytes(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	start := len(s) - maxBytes
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// TruncateLine is pi's truncateLine: at most maxChars UTF-16 units, then "... [truncated]".
func TruncateLine(line string, maxChars int) (string, bool) {
	if len(line) <= maxChars { // bytes ≥ UTF-16 units
		return line, false
	}
	u := utf16.Encode([]rune(line))
	if len(u) <= maxChars {
		return line, false
	}
	return string(utf16.Decode(u[:maxChars])) + "... [truncated]", true
}
