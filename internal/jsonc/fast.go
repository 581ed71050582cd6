package jsonc

// Every pigo start parses its settings, models and MCP files, and nearly all of them are plain
// JSONC: whitespace, // and /* */ comments, trailing commas, strings with the usual escapes.
// hujson.Parse checks each literal with encoding/json.Valid and builds its own tree, which
// convert then copies into Nodes, decoding every string with json.Unmarshal: 13% of `pigo
// tools`' instructions (docs/decisions/25-speed.md, D25.38). parseFast reads that common case
// in one pass straight into Nodes.
//
// It is a strict subset: it declines (returns false) on anything it is not sure of, and Parse
// then runs the hujson path exactly as before, so every error, offset and odd input behaves as
// it did. It takes a document only when
//   - whitespace is ' ', '\t', '\r', '\n', and every comment is a `//` comment ended by '\n'
//     or a closed `/* */` comment, of valid UTF-8, a line comment without U+2028 or U+2029
//     (what hujson's consumeExtra accepts);
//   - every literal (a run of [-+.a-zA-Z0-9], as hujson cuts it) is exactly true, false, null
//     or a number of JSON's grammar (what json.Valid accepts);
//   - every string is valid UTF-8 without control characters, whose escapes are JSON's,
//     with no \u escape of a surrogate except a high one followed by a low one (json.Unmarshal
//     decodes those as below; lone surrogates become U+FFFD there, and are declined here);
//   - every key is a string without a backslash (strconv.Unquote, which convert uses, then
//     gives its text as it is);
//   - nesting is at most MaxDepth (deeper documents get TooDeep's error on the hujson path:
//     outside strings and comments, the brackets TooDeep counts are those of the structure).
//
// TestFastAsHujson and FuzzFast check that whatever parseFast takes, the hujson path parses
// into the same tree.

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/jsonesc"
)

type fastReader struct {
	src []byte
	// text is src as one string: values and keys without escapes are its substrings, so that
	// a document costs one string allocation rather than one a string.
	text  string
	i     int
	depth int
	// nodes are allocated in chunks; members and elems are stacks of the open objects' members
	// and arrays' elements, copied out at each close.
	nodes   []Node
	members []Member
	elems   []*Node
}

// parseFast parses src as Parse does, or returns false for whatever it does not take.
func parseFast(src []byte) (*Node, bool) {
	r := fastReader{src: src, text: string(src)}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		r.i = 3
	}
	if !r.extra() || r.i == len(src) {
		return nil, false
	}
	n := r.value()
	if n == nil || !r.extra() || r.i != len(src) {
		return nil, false
	}
	return n, true
}

func (r *fastReader) node() *Node {
	if len(r.nodes) == cap(r.nodes) {
		r.nodes = make([]Node, 0, min(max(2*cap(r.nodes), 16), 256))
	}
	r.nodes = r.nodes[:len(r.nodes)+1]
	return &r.nodes[len(r.nodes)-1]
}

// extra skips whitespace and comments; false for a comment hujson rejects.
func (r *fastReader) extra() bool {
	src := r.src
	for r.i < len(src) {
		switch src[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		case '/':
			if r.i+1 == len(src) {
				return false
			}
			switch src[r.i+1] {
			case '/':
				j := bytes.IndexByte(src[r.i+2:], '\n')
				if j < 0 {
					return false
				}
				end := r.i + 2 + j + 1
				if c := src[r.i:end]; !ascii(c) && (!utf8.Valid(c) || bytes.ContainsRune(c, '\u2028') || bytes.ContainsRune(c, '\u2029')) {
					return false
				}
				r.i = end
			case '*':
				j := bytes.Index(src[r.i+2:], []byte("*/"))
				if j < 0 {
					return false
				}
				end := r.i + 2 + j + 2
				if c := src[r.i:end]; !ascii(c) && !utf8.Valid(c) {
					return false
				}
				r.i = end
			default:
				return false
			}
		default:
			return true
		}
	}
	return true
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// value reads the value that starts at r.i (its leading extra skipped, r.i < len(r.src)); nil
// declines.
func (r *fastReader) value() *Node {
	src := r.src
	start := r.i
	switch c := src[start]; {
	case c == '{':
		if r.depth++; r.depth > MaxDepth {
			return nil
		}
		r.i++
		base := len(r.members)
		for {
			if !r.extra() || r.i == len(src) {
				return nil
			}
			if src[r.i] == '}' {
				break
			}
			keyStart := r.i
			key, ok := r.key()
			keyEnd := r.i
			if !ok || !r.extra() || r.i == len(src) || src[r.i] != ':' {
				return nil
			}
			r.i++
			if !r.extra() || r.i == len(src) {
				return nil
			}
			v := r.value()
			if v == nil || !r.extra() || r.i == len(src) {
				return nil
			}
			r.members = append(r.members, Member{Key: key, KeyStart: keyStart, KeyEnd: keyEnd, Value: v})
			if src[r.i] == ',' {
				r.i++
				continue
			}
			if src[r.i] != '}' {
				return nil
			}
			break
		}
		r.i++
		r.depth--
		n := r.node()
		n.Kind, n.Start, n.End = Object, start, r.i
		if len(r.members) > base {
			n.Members = append([]Member(nil), r.members[base:]...)
			clear(r.members[base:])
			r.members = r.members[:base]
		}
		return n
	case c == '[':
		if r.depth++; r.depth > MaxDepth {
			return nil
		}
		r.i++
		base := len(r.elems)
		for {
			if !r.extra() || r.i == len(src) {
				return nil
			}
			if src[r.i] == ']' {
				break
			}
			v := r.value()
			if v == nil || !r.extra() || r.i == len(src) {
				return nil
			}
			r.elems = append(r.elems, v)
			if src[r.i] == ',' {
				r.i++
				continue
			}
			if src[r.i] != ']' {
				return nil
			}
			break
		}
		r.i++
		r.depth--
		n := r.node()
		n.Kind, n.Start, n.End = Array, start, r.i
		if len(r.elems) > base {
			n.Elems = append([]*Node(nil), r.elems[base:]...)
			clear(r.elems[base:])
			r.elems = r.elems[:base]
		}
		return n
	case c == '"':
		s, ok := r.str()
		if !ok {
			return nil
		}
		n := r.node()
		n.Kind, n.Start, n.End, n.Str = String, start, r.i, s
		return n
	}
	// A literal: hujson takes the run of these bytes and json.Valid must accept all of it.
	end := start
	for end < len(src) && isLiteralByte(src[end]) {
		end++
	}
	r.i = end
	lit := src[start:end]
	n := r.node()
	n.Start, n.End = start, end
	switch string(lit) {
	case "null":
		n.Kind = Null
	case "true":
		n.Kind, n.Bool = Bool, true
	case "false":
		n.Kind = Bool
	default:
		if !isNumber(lit) {
			return nil
		}
		n.Kind, n.Num = Number, r.text[start:end]
	}
	return n
}

// isLiteralByte: the bytes of hujson's literal run (null, booleans, numbers and near-misses).
func isLiteralByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.'
}

// isNumber reports whether b is a number of JSON's grammar, whole.
func isNumber(b []byte) bool {
	end, ok := jsonesc.NumberEnd(b, 0)
	return ok && end == len(b)
}

// key reads an object key at r.i: a string without a backslash, whose text is its value.
func (r *fastReader) key() (string, bool) {
	src := r.src
	if src[r.i] != '"' {
		return "", false
	}
	i := r.i + 1
	for i < len(src) {
		switch c := src[i]; {
		case c == '"':
			s := r.text[r.i+1 : i]
			r.i = i + 1
			return s, true
		case c < ' ' || c == '\\':
			return "", false
		case c < utf8.RuneSelf:
			i++
		default:
			rn, size := utf8.DecodeRune(src[i:])
			if rn == utf8.RuneError && size == 1 {
				return "", false
			}
			i += size
		}
	}
	return "", false
}

// str reads a string value at r.i, decoding its escapes as json.Unmarshal does.
func (r *fastReader) str() (string, bool) {
	src := r.src
	start := r.i + 1
	i := start
	// The common case: no escape, the value is a substring of the text.
	for i < len(src) {
		c := src[i]
		if c == '"' {
			r.i = i + 1
			return r.text[start:i], true
		}
		if c == '\\' {
			break
		}
		if c < ' ' {
			return "", false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		rn, size := utf8.DecodeRune(src[i:])
		if rn == utf8.RuneError && size == 1 {
			return "", false
		}
		i += size
	}
	if i == len(src) {
		return "", false
	}
	buf := make([]byte, i-start, i-start+16)
	copy(buf, src[start:i])
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			r.i = i + 1
			return string(buf), true
		case c == '\\':
			if i+1 == len(src) {
				return "", false
			}
			switch e := src[i+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				rn, ok := jsonesc.Hex4(src, i+2)
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(rn) {
					// Only a high surrogate followed by a low one: one rune from both.
					if rn >= 0xDC00 || i+12 > len(src) || src[i+6] != '\\' || src[i+7] != 'u' {
						return "", false
					}
					lo, ok := jsonesc.Hex4(src, i+8)
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return "", false
					}
					rn = utf16.DecodeRune(rn, lo)
					i += 6
				}
				buf = utf8.AppendRune(buf, rn)
				i += 4
			default:
				return "", false
			}
			i += 2
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			rn, size := utf8.DecodeRune(src[i:])
			if rn == utf8.RuneError && size == 1 {
				return "", false
			}
			buf = append(buf, src[i:i+size]...)
			i += size
		}
	}
	return "", false
}
