package jsonedit

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/tailscale/hujson"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/lazy"
)

// Error is an edit failure tied to a place in the source. Offset is a byte
// offset into the source (-1 when there is no position); Line and Column
// are 1-based and derived from it.
type Error struct {
	Offset int
	Line   int
	Column int
	Msg    string
	Err    error // wrapped cause, e.g. ErrNotFound
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns the cause, so errors.Is(err, ErrNotFound) works.
func (e *Error) Unwrap() error { return e.Err }

// ErrNotFound is wrapped by errors about a path that does not exist.
var ErrNotFound = errors.New("not found")

// ErrInvalidValue is wrapped by errors about a value that is not valid JSON.
var ErrInvalidValue = errors.New("invalid JSON value")

// ErrSyntax is wrapped by errors about a source document that does not parse.
var ErrSyntax = errors.New("syntax error")

func errAt(src []byte, off int, cause error, format string, args ...any) *Error {
	e := &Error{Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
	if off >= 0 {
		if off > len(src) {
			off = len(src)
		}
		e.Line = 1 + bytes.Count(src[:off], []byte("\n"))
		e.Column = 1 + off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	}
	return e
}

var hujsonErr = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`) }}

// syntaxError converts a hujson parse error into an *Error with an offset.
func syntaxError(src []byte, err error) *Error {
	m := hujsonErr.Get().FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Offset: -1, Msg: "syntax error: " + err.Error(), Err: ErrSyntax}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	off += col - 1
	e := errAt(src, off, ErrSyntax, "syntax error: %s", m[3])
	return e
}

// doc is one parsed source plus the style facts edits need.
type doc struct {
	src      []byte
	root     hujson.Value
	nl       string // "\n" or "\r\n"
	unit     string // one indentation level
	colon    string // between a member's name and its value
	trailing bool   // multi-line containers end with a comma
	inline   bool   // scalar arrays are written on one line
	fresh    bool   // the source was empty and stands for {}
	styled   bool   // detectStyle has run
}

var bom = []byte("\xef\xbb\xbf")

// isBlank reports whether src holds no JSON value: only whitespace and
// comments (or nothing).
func isBlank(src []byte) bool {
	end, ok := skipExtra(src, 0)
	return ok && end == len(src)
}

func parseDoc(src []byte) (*doc, error) {
	if off := jsonc.TooDeep(src); off >= 0 {
		return nil, errAt(src, off, ErrSyntax, "syntax error: nested too deeply (more than %d levels)", jsonc.MaxDepth)
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, syntaxError(src, err)
	}
	d := &doc{src: src, root: v, nl: "\n"}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		d.nl = "\r\n"
	}
	return d, nil
}

// item is the span of one object member (name through value) or array
// element.
type item struct{ start, end int }

func items(v *hujson.Value) []item {
	switch c := v.Value.(type) {
	case *hujson.Object:
		out := make([]item, len(c.Members))
		for i, m := range c.Members {
			out[i] = item{m.Name.StartOffset, m.Value.EndOffset}
		}
		return out
	case *hujson.Array:
		out := make([]item, len(c.Elements))
		for i, e := range c.Elements {
			out[i] = item{e.StartOffset, e.EndOffset}
		}
		return out
	}
	return nil
}

func isScalar(v *hujson.Value) bool {
	switch v.Value.(type) {
	case *hujson.Object, *hujson.Array:
		return false
	}
	return true
}

type counter struct {
	keys []string
	n    map[string]int
}

func (c *counter) add(k string) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[k] == 0 {
		c.keys = append(c.keys, k)
	}
	c.n[k]++
}

// best returns the most frequent key, the earliest seen on ties.
func (c *counter) best(def string) string {
	best, n := def, 0
	for _, k := range c.keys {
		if c.n[k] > n {
			best, n = k, c.n[k]
		}
	}
	return best
}

// detectStyle fills the style fields; it runs only for edits that render
// or insert, since a scalar replacement or a removal does not need it.
func (d *doc) detectStyle() {
	if d.styled {
		return
	}
	d.styled = true
	var units, colons counter
	trailYes, trailNo, inl, multi := 0, 0, 0, 0
	for v := range d.root.All() {
		if isScalar(v) {
			continue
		}
		open, close := v.StartOffset, v.EndOffset-1
		its := items(v)
		multiline := bytes.IndexByte(d.src[open:close], '\n') >= 0
		if multiline && len(its) > 0 {
			if d.commaAfter(its[len(its)-1].end) >= 0 {
				trailYes++
			} else {
				trailNo++
			}
			base := d.lineIndent(open)
			for _, it := range its {
				if !d.headIsBlank(it.start) {
					continue
				}
				ind := d.lineIndent(it.start)
				if len(ind) > len(base) && ind[:len(base)] == base {
					units.add(ind[len(base):])
				}
			}
		}
		switch c := v.Value.(type) {
		case *hujson.Array:
			scalars := len(c.Elements) > 0
			for i := range c.Elements {
				if !isScalar(&c.Elements[i]) {
					scalars = false
				}
			}
			if scalars {
				if multiline {
					multi++
				} else {
					inl++
				}
			}
		case *hujson.Object:
			for _, m := range c.Members {
				sep := d.src[m.Name.EndOffset:m.Value.StartOffset]
				if bytes.Trim(sep, " \t:") == nil || len(bytes.Trim(sep, " \t:")) == 0 {
					colons.add(string(sep))
				}
			}
		}
	}
	d.unit = units.best("  ")
	d.colon = colons.best(": ")
	d.trailing = trailYes > trailNo
	d.inline = inl > multi
}

// lineStart returns the offset of the first byte of the line holding pos.
func (d *doc) lineStart(pos int) int {
	return bytes.LastIndexByte(d.src[:pos], '\n') + 1
}

// lineIndent returns the leading spaces and tabs of the line holding pos.
func (d *doc) lineIndent(pos int) string {
	s := d.lineStart(pos)
	e := s
	for e < len(d.src) && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[s:e])
}

// headIsBlank reports whether only spaces and tabs precede pos on its line.
func (d *doc) headIsBlank(pos int) bool {
	for i := d.lineStart(pos); i < pos; i++ {
		if d.src[i] != ' ' && d.src[i] != '\t' {
			return false
		}
	}
	return true
}

// skipExtra skips whitespace and comments from i. ok is false when a block
// comment is not terminated.
func skipExtra(src []byte, i int) (int, bool) {
	for i < len(src) {
		switch {
		case isSpace(src[i]):
			i++
		case bytes.HasPrefix(src[i:], []byte("//")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return len(src), true
			}
			i += j
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return len(src), false
			}
			i += 2 + j + 2
		default:
			return i, true
		}
	}
	return i, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// commaAfter returns the offset of the comma that follows the value ending
// at end, or -1.
func (d *doc) commaAfter(end int) int {
	i, _ := skipExtra(d.src, end)
	if i < len(d.src) && d.src[i] == ',' {
		return i
	}
	return -1
}

// sameLineEnd skips spaces, tabs and comments that start on the line of
// pos. It returns the offset after the last comment (or pos), and the offset
// of the line break when only spaces and tabs follow up to it (else -1).
func (d *doc) sameLineEnd(pos int) (content, eol int) {
	i := pos
	content = pos
	for i < len(d.src) {
		c := d.src[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\r' && i+1 < len(d.src) && d.src[i+1] == '\n':
			return content, i
		case c == '\n':
			return content, i
		case bytes.HasPrefix(d.src[i:], []byte("//")):
			j := bytes.IndexByte(d.src[i:], '\n')
			if j < 0 {
				return len(d.src), -1
			}
			i += j
			if i > 0 && d.src[i-1] == '\r' {
				i--
			}
			content = i
		case bytes.HasPrefix(d.src[i:], []byte("/*")):
			j := bytes.Index(d.src[i+2:], []byte("*/"))
			if j < 0 {
				return content, -1
			}
			i += 2 + j + 2
			content = i
		default:
			return content, -1
		}
	}
	return content, -1
}
