// Package jsonc parses JSON with comments and trailing commas (via hujson) into a small tree that
// keeps the byte span of every key and value, so that every later diagnostic points into the
// user's own file.
package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Kind is the JSON type of a Node.
type Kind int

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Node is one JSON value with its position in the source.
type Node struct {
	Kind Kind
	// Start and End are the byte offsets of the value itself (for a string, its quotes included).
	Start, End int
	// Bool, Num and Str hold scalar values; Num is the literal text of a number.
	Bool bool
	Num  string
	Str  string
	// Members holds an object's members in source order; Elems an array's elements.
	Members []Member
	Elems   []*Node
}

// Member is one key/value pair of an object.
type Member struct {
	Key              string
	KeyStart, KeyEnd int
	Value            *Node
}

// SyntaxError is a parse failure at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

var hujsonPos = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^hujson: line (\d+), column (\d+): `) }}

// Parse parses src (JSONC). A UTF-8 byte order mark is accepted. An empty or blank document is an
// error; callers that treat empty files as {} check for that first.
func Parse(src []byte) (*Node, error) {
	if n, ok := parseFast(src); ok {
		return n, nil
	}
	return parseHujson(src)
}

// parseHujson is Parse through hujson: every document parseFast declines, and every error.
func parseHujson(src []byte) (*Node, error) {
	buf := src
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		buf = append([]byte("   "), src[3:]...) // keep offsets: a BOM is 3 bytes
	}
	if off := TooDeep(buf); off >= 0 {
		return nil, &SyntaxError{Offset: off, Msg: fmt.Sprintf("nested too deeply (more than %d levels of arrays and objects)", MaxDepth)}
	}
	v, err := hujson.Parse(buf)
	if err != nil {
		return nil, syntaxError(buf, err)
	}
	return convert(buf, &v)
}

// MaxDepth bounds the nesting of arrays and objects. The parser and every walk over the tree
// recurse per level, and a million `[` (2 MB) overflowed the stack: a crash no recover stops.
const MaxDepth = 1000

// TooDeep returns the offset of the first `[` or `{` nested deeper than MaxDepth, or -1. It
// is one linear scan that skips strings and comments.
func TooDeep(src []byte) int {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return -1
			}
			i += 2 + j + 1
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return -1
}

func syntaxError(src []byte, err error) *SyntaxError {
	msg := err.Error()
	off := 0
	if m := hujsonPos.Get().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		msg = msg[len(m[0]):]
		off = lineColOffset(src, line, col)
	}
	// A string that runs past the end of its line is reported by hujson as an "invalid
	// literal" that quotes the rest of the file: name the real problem, on one line.
	if lit, ok := strings.CutPrefix(msg, "invalid literal: "); ok && strings.HasPrefix(lit, `"`) {
		if i := strings.IndexAny(lit, "\r\n"); i >= 0 {
			msg = "unterminated string: " + lit[:i]
		}
	}
	if strings.HasSuffix(msg, "unexpected EOF") { // also "parsing array after value: unexpected EOF"
		msg = "unexpected end of file"
		off = len(bytes.TrimRight(src, " \t\r\n"))
	}
	return &SyntaxError{Offset: off, Msg: msg}
}

func lineColOffset(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+col-1, len(src))
}

func convert(src []byte, v *hujson.Value) (*Node, error) {
	n := &Node{Start: v.StartOffset, End: v.EndOffset}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.Kind = Object
		for i := range t.Members {
			m := &t.Members[i]
			key, err := strconv.Unquote(string(m.Name.Value.(hujson.Literal)))
			if err != nil {
				key = m.Name.Value.(hujson.Literal).String()
			}
			child, err := convert(src, &m.Value)
			if err != nil {
				return nil, err
			}
			n.Members = append(n.Members, Member{Key: key, KeyStart: m.Name.StartOffset, KeyEnd: m.Name.EndOffset, Value: child})
		}
	case *hujson.Array:
		n.Kind = Array
		for i := range t.Elements {
			child, err := convert(src, &t.Elements[i])
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, child)
		}
	case hujson.Literal:
		switch t.Kind() {
		case 'n':
			n.Kind = Null
		case 't', 'f':
			n.Kind, n.Bool = Bool, t.Bool()
		case '0':
			n.Kind, n.Num = Number, string(t)
		case '"':
			n.Kind = String
			if err := json.Unmarshal(t, &n.Str); err != nil {
				return nil, &SyntaxError{Offset: v.StartOffset, Msg: "invalid string: " + err.Error()}
			}
		}
	default:
		return nil, &SyntaxError{Offset: v.StartOffset, Msg: fmt.Sprintf("unexpected value %T", t)}
	}
	return n, nil
}

// Get returns the value of an object member (the last one when the key repeats), or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// Member returns the member for key (the last one when the key repeats), or nil.
func (n *Node) Member(key string) *Member {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return &n.Members[i]
		}
	}
	return nil
}

// Value returns the node as a plain Go value: nil, bool, json.Number, string, []any or
// map[string]any (a repeated key keeps its last value, as JSON decoders do).
func (n *Node) Value() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Num)
	case String:
		return n.Str
	case Array:
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			out[i] = e.Value()
		}
		return out
	case Object:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = m.Value.Value()
		}
		return out
	}
	return nil
}

// JSON returns the node encoded as standard JSON (keys in source order, comments dropped).
func (n *Node) JSON() []byte {
	var b bytes.Buffer
	n.appendJSON(&b)
	return b.Bytes()
}

func (n *Node) appendJSON(b *bytes.Buffer) {
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Num)
	case String:
		s, _ := json.Marshal(n.Str)
		b.Write(s)
	case Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.appendJSON(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		first := true
		for i, m := range n.Members {
			if n.lastIndex(m.Key) != i { // the last duplicate wins
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(m.Key)
			b.Write(k)
			b.WriteByte(':')
			m.Value.appendJSON(b)
		}
		b.WriteByte('}')
	}
}

func (n *Node) lastIndex(key string) int {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// StringOffset maps a rune index inside a string node's decoded value to the byte offset in src
// of the character that produced it, walking the literal's escapes. An index past the end maps to
// the closing quote. Nodes that are not strings map to their start.
func StringOffset(src []byte, n *Node, runeIndex int) int {
	if n == nil || n.Kind != String || n.Start+1 > len(src) || n.End > len(src) {
		if n == nil {
			return 0
		}
		return n.Start
	}
	lit := src[n.Start+1 : max(n.Start+1, n.End-1)]
	off, r := 0, 0
	for off < len(lit) && r < runeIndex {
		if lit[off] == '\\' && off+1 < len(lit) {
			if lit[off+1] == 'u' && off+6 <= len(lit) {
				code, err := strconv.ParseUint(string(lit[off+2:off+6]), 16, 32)
				off += 6
				// A surrogate pair encodes one rune in two escapes.
				if err == nil && code >= 0xD800 && code < 0xDC00 && off+6 <= len(lit) && lit[off] == '\\' && lit[off+1] == 'u' {
					off += 6
				}
			} else {
				off += 2
			}
		} else {
			_, size := utf8.DecodeRune(lit[off:])
			off += size
		}
		r++
	}
	return n.Start + 1 + off
}

// Walk calls fn for n and every node below it, parents first, with the node's path.
func Walk(n *Node, fn func(path []any, n *Node) bool) {
	walk(nil, n, fn)
}

func walk(path []any, n *Node, fn func([]any, *Node) bool) {
	if n == nil || !fn(path, n) {
		return
	}
	for _, m := range n.Members {
		walk(append(path[:len(path):len(path)], m.Key), m.Value, fn)
	}
	for i, e := range n.Elems {
		walk(append(path[:len(path):len(path)], i), e, fn)
	}
}
