// Package diag is pigo's one diagnostic type: a problem in a file, kept as byte offsets into the
// file's text and turned into line:col only when rendered.
//
// Every loader, checker and resolver reports through it, so that `pigo check`, `pigo tools` and
// the TUI print the same position, code and message for the same problem.
package diag

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
	"unicode/utf8"
)

// Severity orders diagnostics: errors fail a check, warnings fail it with --strict, infos never do.
type Severity int

// The severities, most severe first.
const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// Source is the text of one file as read, with a lazily built line table.
type Source struct {
	// Name is the path as the user gave it (absolute when the input was absolute).
	Name string
	// Text is the file's bytes; nil when the file could not be read.
	Text  []byte
	lines []int
}

// NewSource returns a Source for name with the given text.
func NewSource(name string, text []byte) *Source { return &Source{Name: name, Text: text} }

func (s *Source) lineStarts() []int {
	if s.lines == nil {
		// Counted first and found with bytes.IndexByte: the shipped catalogue's sources are
		// large, and a byte loop growing the slice was 2% of `pigo tools`' instructions.
		s.lines = make([]int, 1, bytes.Count(s.Text, []byte{'\n'})+1)
		for i := 0; ; {
			j := bytes.IndexByte(s.Text[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			s.lines = append(s.lines, i)
		}
	}
	return s.lines
}

// Position converts a byte offset into a 1-based line and a 1-based byte column. Offsets past the
// end are clamped to the end of the text.
func (s *Source) Position(off int) (line, col int) {
	if s == nil || off < 0 {
		return 0, 0
	}
	if off > len(s.Text) {
		off = len(s.Text)
	}
	ls := s.lineStarts()
	i := sort.Search(len(ls), func(i int) bool { return ls[i] > off }) - 1
	return i + 1, off - ls[i] + 1
}

// Offset converts a 1-based line and byte column back into a byte offset, clamped to the text.
func (s *Source) Offset(line, col int) int {
	ls := s.lineStarts()
	if line < 1 {
		return 0
	}
	if line > len(ls) {
		return len(s.Text)
	}
	off := ls[line-1] + col - 1
	end := len(s.Text)
	if line < len(ls) {
		end = ls[line] - 1
	}
	return max(ls[line-1], min(off, end))
}

// Line returns the text of a 1-based line without its line terminator (\n or \r\n).
func (s *Source) Line(line int) []byte {
	ls := s.lineStarts()
	if line < 1 || line > len(ls) {
		return nil
	}
	start, end := ls[line-1], len(s.Text)
	if line < len(ls) {
		end = ls[line] - 1
	}
	return bytes.TrimSuffix(s.Text[start:end], []byte("\r"))
}

// Span is a range of bytes in a Source. Start < 0 means the whole file (no position).
type Span struct {
	Src        *Source
	Start, End int
}

// FileSpan is a Span that names a file without pointing into it.
func FileSpan(src *Source) Span { return Span{Src: src, Start: -1, End: -1} }

// At returns the span [start, end) of src.
func At(src *Source, start, end int) Span {
	if end < start {
		end = start
	}
	return Span{Src: src, Start: start, End: end}
}

// HasPos reports whether the span points at bytes of its file.
func (sp Span) HasPos() bool { return sp.Src != nil && sp.Start >= 0 }

// File returns the span's file name, or "" when it has none.
func (sp Span) File() string {
	if sp.Src == nil {
		return ""
	}
	return sp.Src.Name
}

// Pos returns the 1-based line and byte column of the span's start (0, 0 without a position).
func (sp Span) Pos() (line, col int) {
	if !sp.HasPos() {
		return 0, 0
	}
	return sp.Src.Position(sp.Start)
}

// EndPos returns the 1-based line and column just past the span's last byte.
func (sp Span) EndPos() (line, col int) {
	if !sp.HasPos() {
		return 0, 0
	}
	return sp.Src.Position(max(sp.End, sp.Start))
}

// Diagnostic is one problem found in one place.
type Diagnostic struct {
	Span
	Severity Severity
	// Code is a stable kebab-case identifier such as "schema" or "unknown-field".
	Code string
	// Message says what is wrong, lowercase, quoting user values.
	Message string
	// Path is the dotted config path of the value concerned, when there is one.
	Path string
	// Hint is an optional suggestion, such as `did you mean "opencode"?`.
	Hint string
}

// List is a collection of diagnostics.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(sp Span, sev Severity, code, path, msg string) *Diagnostic {
	*l = append(*l, Diagnostic{Span: sp, Severity: sev, Code: code, Path: path, Message: msg})
	return &(*l)[len(*l)-1]
}

// Count returns the number of errors, warnings and infos.
func (l List) Count() (errors, warnings, infos int) {
	for _, d := range l {
		switch d.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		default:
			infos++
		}
	}
	return
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	e, _, _ := l.Count()
	return e > 0
}

// Sort orders diagnostics by file, position, severity, code and message, and drops exact
// duplicates, so that output is deterministic whatever order the checks ran in.
func (l List) Sort() List {
	out := slices.Clone(l)
	slices.SortStableFunc(out, compare)
	return slices.CompactFunc(out, func(a, b Diagnostic) bool { return compare(a, b) == 0 && a.Hint == b.Hint && a.Path == b.Path })
}

func compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.File(), b.File()),
		cmp.Compare(a.Start, b.Start),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Message, b.Message),
	)
}

// RuneOffset returns the byte offset of the n-th rune (0-based) of text, or len(text) past the end.
func RuneOffset(text []byte, n int) int {
	off := 0
	for i := 0; i < n && off < len(text); i++ {
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return off
}
