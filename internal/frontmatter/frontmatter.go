// Package frontmatter splits a Markdown file into its YAML frontmatter and body and parses the
// frontmatter into a jsonc.Node tree whose offsets are offsets in the Markdown file, so that a
// problem in `agents/scout.md` is reported at its own line and column.
package frontmatter

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/lazy"
)

// Limits that keep a hostile file (reachable from an untrusted project through `pigo check`)
// from exhausting memory or time. Real frontmatter is a few hundred bytes.
const (
	// MaxYAML is the largest frontmatter pigo parses, in bytes.
	MaxYAML = 1 << 20
	// MaxAliasNodes bounds the values that YAML aliases may add when expanded: a few nested
	// anchors ("billion laughs") otherwise expand to billions of values from a few hundred bytes.
	MaxAliasNodes = 10000
	// MaxDepth bounds the nesting of the frontmatter.
	MaxDepth = 100
)

// Doc is a split Markdown file.
type Doc struct {
	// Present is false when the file has no frontmatter block at all.
	Present bool
	// YAMLStart and YAMLEnd delimit the YAML text inside the file; Open is the offset of the
	// opening `---` line.
	Open, YAMLStart, YAMLEnd int
	// BodyStart is the offset of the first byte after the closing delimiter line.
	BodyStart int
	// Data is the parsed frontmatter (an object), nil when absent or when parsing failed.
	Data *jsonc.Node
	// Warnings are problems that do not stop the frontmatter from being read, such as a YAML
	// merge key (`<<:`), which pi reads as an ordinary key.
	Warnings []*Error
}

// Error is a frontmatter problem at a byte offset of the Markdown file. Code is a short
// kebab-case name for a warning ("yaml-merge"); errors leave it empty.
type Error struct {
	Offset int
	Msg    string
	Code   string
}

func (e *Error) Error() string { return e.Msg }

// Parse splits src. A file without an opening `---` line has no frontmatter (Present false, no
// error). An opening line without a closing one, or YAML that does not parse or is not a mapping,
// is an *Error. Lines end with LF, CRLF or a bare CR (pi normalizes all three).
func Parse(src []byte) (*Doc, error) {
	d := &Doc{}
	off := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		off = 3
	}
	first, next := lineAt(src, off)
	if strings.TrimRight(string(first), " \t") != "---" {
		d.BodyStart = 0
		return d, nil
	}
	d.Present, d.Open, d.YAMLStart = true, off, next
	for pos := next; pos < len(src); {
		line, nxt := lineAt(src, pos)
		t := bytes.TrimRight(line, " \t")
		if string(t) == "---" || string(t) == "..." {
			d.YAMLEnd, d.BodyStart = pos, nxt
			break
		}
		pos = nxt
	}
	if d.YAMLEnd == 0 {
		return d, &Error{Offset: d.Open, Msg: "frontmatter is not closed: no line `---` after the opening one"}
	}
	yml := src[d.YAMLStart:d.YAMLEnd]
	if len(bytes.TrimSpace(yml)) == 0 {
		d.Data = &jsonc.Node{Kind: jsonc.Object, Start: d.Open, End: d.Open + 3}
		return d, nil
	}
	if len(yml) > MaxYAML {
		return d, &Error{Offset: d.YAMLStart, Msg: fmt.Sprintf("frontmatter is too large (%d bytes; pigo reads frontmatter up to %d bytes)", len(yml), MaxYAML)}
	}
	if n, ok := parseFlat(src, d.YAMLStart, d.YAMLEnd); ok {
		d.Data = n
		return d, nil
	}
	return parseYAML(d, src)
}

// parseYAML parses the frontmatter of d with yaml.v3.
func parseYAML(d *Doc, src []byte) (*Doc, error) {
	yml := src[d.YAMLStart:d.YAMLEnd]
	c := newConverter(src, d.YAMLStart, d.YAMLEnd)
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		return d, c.yamlError(err)
	}
	if len(root.Content) == 0 {
		d.Data = &jsonc.Node{Kind: jsonc.Object, Start: d.Open, End: d.Open + 3}
		return d, nil
	}
	n, err := c.node(root.Content[0], 0, false)
	if err != nil {
		return d, err
	}
	if n.Kind != jsonc.Object {
		return d, &Error{Offset: n.Start, Msg: fmt.Sprintf("frontmatter must be a mapping of keys to values, got %s", n.Kind)}
	}
	d.Data = n
	d.Warnings = c.warnings
	return d, nil
}

// lineAt returns the line at off without its line break (LF, CRLF or a bare CR) and the offset
// of the next line.
func lineAt(src []byte, off int) (line []byte, next int) {
	for i := off; i < len(src); i++ {
		switch src[i] {
		case '\n':
			return src[off:i], i + 1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				return src[off:i], i + 2
			}
			return src[off:i], i + 1
		}
	}
	return src[off:], len(src)
}

// yamlBreak returns the length of the line break yaml.v3 sees at src[i] (CRLF, CR, LF, and the
// Unicode breaks NEL, LS and PS), or 0.
func yamlBreak(src []byte, i int) int {
	switch src[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(src) && src[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// parserProblems are yaml.v3's parser (not scanner) messages. For those yaml.v3 reports the
// 0-based line of its mark as if it were 1-based, one line early, and omits line 1 entirely.
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected '-' indicator",
	"did not find expected key", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive",
	"found undefined tag handle",
}

var yamlLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) }}

// yamlError places a yaml.v3 error on the line it is about.
func (c *converter) yamlError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine.Get().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = err.Error()[len(m[0]):]
	}
	if m := yamlLine.Get().FindStringSubmatch(err.Error()); m != nil && slices.Contains(parserProblems, msg) {
		line++
	}
	// An error at the end of the stream (an unclosed bracket) is about the last line written.
	for line > 1 && (line > len(c.lines) || len(bytes.TrimSpace(c.lineText(line))) == 0) {
		line--
	}
	return &Error{Offset: c.lineOffset(line), Msg: "invalid YAML: " + msg}
}

// converter turns a yaml.v3 tree into jsonc nodes with offsets in the Markdown file. It
// indexes the line starts of the YAML text once, so that every node is placed in constant time
// (a per-node rescan from the top made a 20k-line frontmatter quadratic).
type converter struct {
	src []byte
	// lines[i] is the offset of the YAML text's line i+1, as yaml.v3 counts lines.
	lines []int
	end   int
	// aliasNodes counts the values added by expanding aliases (MaxAliasNodes).
	aliasNodes int
	warnings   []*Error
	// The last position converted: columns on the same line are reached from there.
	lastLine, lastCol, lastOff int
}

func newConverter(src []byte, start, end int) *converter {
	c := &converter{src: src, end: end, lines: []int{start}}
	for i := start; i < end; {
		if n := yamlBreak(src, i); n > 0 {
			i += n
			c.lines = append(c.lines, i)
			continue
		}
		i++
	}
	return c
}

// lineOffset returns the offset of 1-based YAML line l, clamped to the YAML text.
func (c *converter) lineOffset(l int) int {
	if l < 1 {
		l = 1
	}
	if l > len(c.lines) {
		return c.lines[len(c.lines)-1]
	}
	return c.lines[l-1]
}

// lineText returns 1-based YAML line l (with its break).
func (c *converter) lineText(l int) []byte {
	if l < len(c.lines) {
		return c.src[c.lines[l-1]:c.lines[l]]
	}
	return c.src[c.lineOffset(l):c.end]
}

// offset converts a yaml.v3 line/column (1-based, column in characters, relative to the YAML
// text) into a byte offset in the Markdown file, never past the end of the YAML text.
func (c *converter) offset(line, col int) int {
	off, i := c.lineOffset(line), 1
	if line == c.lastLine && col >= c.lastCol && c.lastCol > 0 {
		off, i = c.lastOff, c.lastCol
	}
	for ; i < col && off < c.end; i++ {
		if yamlBreak(c.src, off) > 0 {
			break
		}
		_, size := utf8.DecodeRune(c.src[off:c.end])
		off += size
	}
	c.lastLine, c.lastCol, c.lastOff = line, i, off
	return off
}

func (c *converter) node(y *yaml.Node, depth int, inAlias bool) (*jsonc.Node, error) {
	if depth > MaxDepth {
		return nil, &Error{Offset: c.offset(y.Line, y.Column), Msg: fmt.Sprintf("frontmatter is nested too deeply (more than %d levels)", MaxDepth)}
	}
	if inAlias {
		if c.aliasNodes++; c.aliasNodes > MaxAliasNodes {
			return nil, &Error{Offset: c.offset(y.Line, y.Column), Msg: fmt.Sprintf("YAML aliases expand to more than %d values; pigo does not expand them (a resource exhaustion attack?)", MaxAliasNodes)}
		}
	}
	start := c.offset(y.Line, y.Column)
	n := &jsonc.Node{Start: start, End: min(start+1, c.end)}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{Offset: start, Msg: "unknown YAML alias"}
		}
		a, err := c.node(y.Alias, depth+1, true)
		if err != nil {
			if !inAlias {
				// Report the alias the user wrote, not a place inside its anchor.
				err.(*Error).Offset = start
			}
			return nil, err
		}
		cp := *a
		cp.Start, cp.End = start, min(start+len(y.Value)+1, c.end)
		return &cp, nil
	case yaml.MappingNode:
		n.Kind = jsonc.Object
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			ks := c.offset(k.Line, k.Column)
			if k.Tag == "!!merge" && !inAlias {
				c.warnings = append(c.warnings, &Error{Offset: ks, Code: "yaml-merge",
					Msg: "YAML merge key `<<` is not merged: pi reads frontmatter as YAML 1.2, where `<<` is an ordinary key"})
			}
			val, err := c.node(v, depth+1, inAlias)
			if err != nil {
				return nil, err
			}
			n.Members = append(n.Members, jsonc.Member{Key: k.Value, KeyStart: ks, KeyEnd: c.scalarEnd(k, ks), Value: val})
		}
	case yaml.SequenceNode:
		n.Kind = jsonc.Array
		for _, e := range y.Content {
			val, err := c.node(e, depth+1, inAlias)
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, val)
		}
	case yaml.ScalarNode:
		n.End = c.scalarEnd(y, start)
		switch y.ShortTag() {
		case "!!null":
			n.Kind = jsonc.Null
		case "!!bool":
			var b bool
			if err := y.Decode(&b); err != nil {
				n.Kind, n.Str = jsonc.String, y.Value
			} else {
				n.Kind, n.Bool = jsonc.Bool, b
			}
		case "!!int", "!!float":
			n.Kind, n.Num = number(y)
			if n.Kind == jsonc.String {
				n.Str = y.Value
			}
		default:
			n.Kind, n.Str = jsonc.String, y.Value
		}
	default:
		return nil, &Error{Offset: start, Msg: "unsupported YAML node"}
	}
	return n, nil
}

// maxNumber bounds the length of a number literal that is converted: yaml.v3 parses integers
// with math/big, and a million digits then take seconds. A longer one stays a string.
const maxNumber = 400

// number converts an !!int or !!float scalar; a literal that does not fit a float64 stays a
// string (kind String).
func number(y *yaml.Node) (jsonc.Kind, string) {
	if len(y.Value) > maxNumber {
		return jsonc.String, ""
	}
	var f float64
	if err := y.Decode(&f); err != nil {
		return jsonc.String, ""
	}
	return jsonc.Number, strconv.FormatFloat(f, 'g', -1, 64)
}

// scalarEnd finds the end of a scalar's source text on its line: the closing quote of a quoted
// scalar, the end of a plain one. Block scalars (| and >) end at their indicator. It scans only
// the scalar's own text, so a long line of many scalars stays linear.
func (c *converter) scalarEnd(y *yaml.Node, start int) int {
	if start >= c.end {
		return c.end
	}
	src := c.src[:c.end]
	switch y.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := src[start]
		for i := start + 1; i < len(src); i++ {
			if yamlBreak(src, i) > 0 {
				return i
			}
			if q == '"' && src[i] == '\\' {
				i++
				continue
			}
			if src[i] == q {
				if q == '\'' && i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
		return len(src)
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return start + 1
	}
	if bytes.HasPrefix(src[start:], []byte(y.Value)) {
		return start + len(y.Value)
	}
	// A plain scalar folded over lines: its first line, up to a comment.
	line, _ := lineAt(src, start)
	end := bytes.Index(line, []byte(" #"))
	if end < 0 {
		end = len(line)
	}
	return start + len(bytes.TrimRight(line[:end], " \t"))
}

// parseFlat reads the frontmatter most files have, `key: value` lines of single-line strings,
// without yaml.v3, into the tree yaml.v3's parse converts to (parsing with yaml.v3 was 8% of
// `pigo tools`' instructions: ~100 K a file). It takes the YAML text src[start:end] only when
// every line is `KEY: VALUE` at column 0 with KEY an identifier (letters, digits, '_', '-')
// met once, one or more spaces, and VALUE either a plain scalar that YAML reads as a string
// (a letter or a printable non-ASCII character first, then printable characters without a tab,
// ": ", " #", a trailing ':' and without being true/false/null in one of their spellings) or a
// quoted string without escapes; anything else (a blank or indented line, a comment, a list, a
// number, a block scalar, an anchor) goes to yaml.v3. TestFlatAsYAML compares the two.
func parseFlat(src []byte, start, end int) (*jsonc.Node, bool) {
	var root *jsonc.Node
	for pos := start; pos < end; {
		// The line, up to a break as yaml.v3 sees one (LF, CR, CRLF; NEL, LS and PS are not
		// printable here, so a line holding one is not taken).
		eol := pos
		for eol < end && src[eol] != '\n' && src[eol] != '\r' {
			eol++
		}
		next := eol
		if next < end {
			next += yamlBreak(src, next)
		}
		m, ok := flatMember(src, pos, eol)
		if !ok {
			return nil, false
		}
		if root == nil {
			root = &jsonc.Node{Kind: jsonc.Object, Start: pos, End: min(pos+1, end)}
		}
		for _, o := range root.Members {
			if o.Key == m.Key {
				return nil, false // yaml.v3's answer to a duplicate key is its own
			}
		}
		root.Members = append(root.Members, m)
		pos = next
	}
	return root, root != nil
}

// flatMember reads `KEY: VALUE` from src[pos:eol] (see parseFlat).
func flatMember(src []byte, pos, eol int) (jsonc.Member, bool) {
	i := pos
	for i < eol && (src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || i > pos && (src[i] >= '0' && src[i] <= '9' || src[i] == '_' || src[i] == '-')) {
		i++
	}
	if i == pos || i+1 >= eol || src[i] != ':' || src[i+1] != ' ' {
		return jsonc.Member{}, false
	}
	keyEnd := i
	for i++; i < eol && src[i] == ' '; i++ {
	}
	vEnd := eol
	for vEnd > i && src[vEnd-1] == ' ' {
		vEnd--
	}
	if i == vEnd || !printable(src[i:vEnd]) {
		return jsonc.Member{}, false
	}
	if vEnd != eol && src[vEnd] != ' ' {
		return jsonc.Member{}, false // a tab or another blank after the value
	}
	v := &jsonc.Node{Kind: jsonc.String, Start: i, End: vEnd}
	switch c := src[i]; {
	case c == '"' || c == '\'':
		// A quoted string without escapes ("" or \ or ''), closed at the end of the line.
		if vEnd-i < 2 || src[vEnd-1] != c {
			return jsonc.Member{}, false
		}
		body := src[i+1 : vEnd-1]
		if bytes.IndexByte(body, c) >= 0 || c == '"' && bytes.IndexByte(body, '\\') >= 0 {
			return jsonc.Member{}, false
		}
		v.Str = string(body)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
		body := src[i:vEnd]
		if bytes.Contains(body, []byte(": ")) || bytes.Contains(body, []byte(" #")) || body[len(body)-1] == ':' {
			return jsonc.Member{}, false
		}
		switch string(body) {
		case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
			return jsonc.Member{}, false
		}
		v.Str = string(body)
	default:
		return jsonc.Member{}, false
	}
	return jsonc.Member{Key: string(src[pos:keyEnd]), KeyStart: pos, KeyEnd: keyEnd, Value: v}, true
}

// printable reports whether b is valid UTF-8 of characters YAML calls printable, without a tab,
// a line break (NEL, LS, PS) or a byte order mark.
func printable(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r >= 0xD800 && r < 0xE000 || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}
