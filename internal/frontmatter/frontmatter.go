// Package frontmatter splits a Markdown file into its YAML frontmatter and body and parses the
// frontmatter into a jsonc.Node tree whose offsets are offsets in the Markdown file, so that a
// problem in `agents/scout.md` is reported at its own line and column.
package frontmatter

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/pigo-agent/pigo/internal/jsonc"
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
}

// Error is a frontmatter problem at a byte offset of the Markdown file.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Parse splits src. A file without an opening `---` line has no frontmatter (Present false, no
// error). An opening line without a closing one, or YAML that does not parse or is not a mapping,
// is an *Error.
func Parse(src []byte) (*Doc, error) {
	d := &Doc{}
	off := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		off = 3
	}
	first, next := lineAt(src, off)
	if strings.TrimRight(string(first), " \t\r") != "---" {
		d.BodyStart = 0
		return d, nil
	}
	d.Present, d.Open, d.YAMLStart = true, off, next
	for pos := next; pos < len(src); {
		line, nxt := lineAt(src, pos)
		t := strings.TrimRight(string(line), " \t\r")
		if t == "---" || t == "..." {
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
	var root yaml.Node
	if err := yaml.Unmarshal(yml, &root); err != nil {
		return d, yamlError(src, d.YAMLStart, err)
	}
	c := converter{src: src, base: d.YAMLStart, firstLine: lineNumber(src, d.YAMLStart)}
	if len(root.Content) == 0 {
		d.Data = &jsonc.Node{Kind: jsonc.Object, Start: d.Open, End: d.Open + 3}
		return d, nil
	}
	n, err := c.node(root.Content[0], 0)
	if err != nil {
		return d, err
	}
	if n.Kind != jsonc.Object {
		return d, &Error{Offset: n.Start, Msg: fmt.Sprintf("frontmatter must be a mapping of keys to values, got %s", n.Kind)}
	}
	d.Data = n
	return d, nil
}

func lineAt(src []byte, off int) (line []byte, next int) {
	i := bytes.IndexByte(src[off:], '\n')
	if i < 0 {
		return src[off:], len(src)
	}
	return src[off : off+i], off + i + 1
}

func lineNumber(src []byte, off int) int { return 1 + bytes.Count(src[:off], []byte("\n")) }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func yamlError(src []byte, base int, err error) *Error {
	msg := err.Error()
	off := base
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		l, _ := strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		off = base
		for i := 1; i < l && off < len(src); i++ {
			_, off = lineAt(src, off)
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &Error{Offset: off, Msg: "invalid YAML: " + msg}
}

type converter struct {
	src       []byte
	base      int
	firstLine int
}

// offset converts a yaml.v3 line/column (1-based, column in characters, relative to the YAML
// text) into a byte offset in the Markdown file.
func (c *converter) offset(line, col int) int {
	off := c.base
	for i := 1; i < line && off < len(c.src); i++ {
		_, off = lineAt(c.src, off)
	}
	l, _ := lineAt(c.src, off)
	for i := 1; i < col && len(l) > 0; i++ {
		_, size := utf8.DecodeRune(l)
		off += size
		l = l[size:]
	}
	return off
}

func (c *converter) node(y *yaml.Node, depth int) (*jsonc.Node, error) {
	if depth > 100 {
		return nil, &Error{Offset: c.offset(y.Line, y.Column), Msg: "frontmatter is nested too deeply"}
	}
	start := c.offset(y.Line, y.Column)
	n := &jsonc.Node{Start: start, End: start + 1}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{Offset: start, Msg: "unknown YAML alias"}
		}
		a, err := c.node(y.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		cp := *a
		cp.Start, cp.End = start, start+len(y.Value)+1
		return &cp, nil
	case yaml.MappingNode:
		n.Kind = jsonc.Object
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Tag == "!!merge" {
				continue
			}
			val, err := c.node(v, depth+1)
			if err != nil {
				return nil, err
			}
			ks := c.offset(k.Line, k.Column)
			n.Members = append(n.Members, jsonc.Member{Key: k.Value, KeyStart: ks, KeyEnd: c.scalarEnd(k, ks), Value: val})
		}
	case yaml.SequenceNode:
		n.Kind = jsonc.Array
		for _, e := range y.Content {
			val, err := c.node(e, depth+1)
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
			var f float64
			if err := y.Decode(&f); err != nil {
				n.Kind, n.Str = jsonc.String, y.Value
			} else {
				n.Kind, n.Num = jsonc.Number, strconv.FormatFloat(f, 'g', -1, 64)
			}
		default:
			n.Kind, n.Str = jsonc.String, y.Value
		}
	default:
		return nil, &Error{Offset: start, Msg: "unsupported YAML node"}
	}
	return n, nil
}

// scalarEnd finds the end of a scalar's source text on its line: the closing quote of a quoted
// scalar, the end of a plain one. Block scalars (| and >) end at their indicator.
func (c *converter) scalarEnd(y *yaml.Node, start int) int {
	line, _ := lineAt(c.src, start)
	line = bytes.TrimRight(line, "\r")
	switch y.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := line[0]
		for i := 1; i < len(line); i++ {
			if q == '"' && line[i] == '\\' {
				i++
				continue
			}
			if line[i] == q {
				if q == '\'' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1
			}
		}
		return start + len(line)
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return start + 1
	}
	if i := bytes.Index(line, []byte(y.Value)); i == 0 {
		return start + len(y.Value)
	}
	end := bytes.Index(line, []byte(" #"))
	if end < 0 {
		end = len(line)
	}
	return start + len(bytes.TrimRight(line[:end], " \t"))
}
