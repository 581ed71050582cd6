package tools

// The opencode file toolset (read edit write grep glob bash todowrite
// question): model-visible texts, limits and formats as the seed's
// src/opencode/*.ts (runtime-behaviour.md §1.3).

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
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

// localeSort sorts names as JavaScript's a.localeCompare(b) does in an
// English locale (the Unicode root collation).
func localeSort(names []string) {
	c := collate.New(language.Und)
	sort.SliceStable(names, func(i, j int) bool { return c.CompareString(names[i], names[j]) < 0 })
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
