// Package jsonedit makes minimal, comment-preserving edits to JSONC documents
// (JSON with // and /* */ comments and trailing commas), as used by pi's
// settings.json, sandbox.json and lsp.json files.
//
// Every edit is a byte splice on the original source: the bytes of the value
// being replaced or removed change, plus the commas, line breaks and
// indentation the edit needs. Comments, key order, unknown keys, blank lines,
// trailing commas, the indentation unit (tabs or N spaces), CRLF line endings
// and the presence or absence of a final newline all survive.
//
// Rendering rules for values written by Set and Add:
//   - scalars and empty containers are written compactly ("x", 1, [], {});
//   - a non-empty object is written one member per line, indented with the
//     file's indentation unit below the line that holds it;
//   - a non-empty array whose elements are all scalars is written inline
//     (["a", "b"]) when the file mostly writes its scalar arrays inline and
//     the result is at most 72 bytes; otherwise one element per line. A file
//     without any non-empty scalar array uses one element per line, like
//     JSON.stringify(v, null, 2);
//   - inside a container that sits on one line, values are written inline;
//   - new multi-line containers get trailing commas only when the file's
//     multi-line containers mostly end with one.
package jsonedit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Step is one step of a Path: an object key, or an array index when IsIndex
// is set.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Key returns a Step that selects the object member named k.
func Key(k string) Step { return Step{Key: k} }

// Index returns a Step that selects the array element at position i.
func Index(i int) Step { return Step{Index: i, IsIndex: true} }

// Path locates a value inside a JSON document, from the root down.
type Path []Step

// String renders p in the syntax ParsePath accepts: keys joined by dots,
// indexes as [N], keys that need it quoted as ["..."].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.IsIndex:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case needsQuote(s.Key):
			b.WriteString("[")
			b.WriteString(quoteKey(s.Key))
			b.WriteString("]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

func needsQuote(k string) bool {
	if k == "" || strings.TrimSpace(k) != k || !utf8.ValidString(k) {
		return true
	}
	for _, r := range k {
		if r == '.' || r == '[' || r == ']' || r == '"' || r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// quoteKey returns k as a JSON string literal without HTML escaping.
func quoteKey(k string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(k) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// PathError reports a malformed path string; Offset is the byte offset in it.
type PathError struct {
	Path   string
	Offset int
	Msg    string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("invalid path %q at offset %d: %s", e.Path, e.Offset, e.Msg)
}

// ParsePath parses a dotted path with [N] indexes and ["quoted"] keys, e.g.
// `personalExtensions.fileIo`, `servers.gopls.args[0]` or
// `modelThinkingLevels["openai/gpt-5.1"]`. A bare key is any run of
// characters other than '.', '[', ']' and '"'.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, &PathError{Path: s, Msg: "empty path"}
	}
	var p Path
	i := 0
	fail := func(off int, format string, args ...any) (Path, error) {
		return nil, &PathError{Path: s, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	for i < len(s) {
		switch c := s[i]; {
		case c == '[':
			j := i + 1
			if j < len(s) && s[j] == '"' {
				end, key, err := scanQuoted(s, j)
				if err != nil {
					return fail(j, "%v", err)
				}
				if end >= len(s) || s[end] != ']' {
					return fail(end, "expected ']' after quoted key")
				}
				p = append(p, Key(key))
				i = end + 1
				break
			}
			k := j
			for k < len(s) && s[k] != ']' {
				k++
			}
			if k >= len(s) {
				return fail(i, "unclosed '['")
			}
			num := s[j:k]
			if strings.HasPrefix(num, "-") {
				return fail(j, "negative index %s", num)
			}
			if num == "" || strings.Trim(num, "0123456789") != "" {
				return fail(j, "index must be a number or a quoted key, not %q", num)
			}
			n, err := strconv.Atoi(num)
			if err != nil {
				return fail(j, "index %s is too large", num)
			}
			p = append(p, Index(n))
			i = k + 1
		case c == '.':
			if i == 0 {
				return fail(i, "path starts with '.'")
			}
			i++
			if i >= len(s) {
				return fail(i, "empty key after '.'")
			}
			if s[i] == '.' || s[i] == '[' || s[i] == ']' || s[i] == '"' {
				return fail(i, "empty key after '.'")
			}
		case c == ']':
			return fail(i, "unexpected ']'")
		case c == '"':
			return fail(i, "quoted keys go in brackets: [\"...\"]")
		default:
			if i > 0 && s[i-1] != '.' {
				return fail(i, "expected '.' or '[' before key")
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' && s[j] != '"' {
				j++
			}
			p = append(p, Key(s[i:j]))
			i = j
		}
	}
	return p, nil
}

// scanQuoted decodes the JSON string starting at s[i] == '"' and returns the
// offset just past its closing quote.
func scanQuoted(s string, i int) (int, string, error) {
	j := i + 1
	for j < len(s) {
		switch s[j] {
		case '\\':
			j += 2
			continue
		case '"':
			var key string
			if err := json.Unmarshal([]byte(s[i:j+1]), &key); err != nil {
				return 0, "", fmt.Errorf("bad quoted key %s", s[i:j+1])
			}
			return j + 1, key, nil
		}
		j++
	}
	return 0, "", fmt.Errorf("unterminated quoted key")
}
