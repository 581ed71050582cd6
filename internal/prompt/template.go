package prompt

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// ParseArgs splits a command's argument string as pi's parseCommandArgs does: single or double
// quotes group (and are removed), unquoted whitespace separates, there are no escapes, and an
// unclosed quote runs to the end.
func ParseArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	for _, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '"' || c == '\'':
			quote = c
		case isJSSpace(c):
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

// isJSSpace is JavaScript's /\s/: Unicode white space plus U+FEFF.
func isJSSpace(c rune) bool {
	return unicode.IsSpace(c) || c == '\ufeff'
}

var argPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)`)
}}

// SubstituteArgs expands pi's placeholders in a template: $1…$N ("" when missing), $@ and
// $ARGUMENTS (all, space-joined), ${N:-default}, ${@:-default}, ${ARGUMENTS:-default} (the
// default when the value is empty), ${@:N} and ${@:N:L} (1-based slices; 0 means 1). Values
// are not expanded again.
func SubstituteArgs(content string, args []string) string {
	all := strings.Join(args, " ")
	arg := func(n string) string {
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > len(args) {
			return ""
		}
		return args[i-1]
	}
	return argPattern.Get().ReplaceAllStringFunc(content, func(m string) string {
		g := argPattern.Get().FindStringSubmatch(m)
		switch {
		case g[1] != "":
			v := all
			if g[1] != "@" && g[1] != "ARGUMENTS" {
				v = arg(g[1])
			}
			if v != "" {
				return v
			}
			return g[2]
		case g[3] != "":
			start, _ := strconv.Atoi(g[3])
			start--
			if start < 0 {
				start = 0
			}
			if start > len(args) {
				start = len(args)
			}
			end := len(args)
			if g[4] != "" {
				l, _ := strconv.Atoi(g[4])
				if start+l < end {
					end = start + l
				}
			}
			return strings.Join(args[start:end], " ")
		case g[5] == "@" || g[5] == "ARGUMENTS":
			return all
		}
		return arg(g[5])
	})
}

// Template is a loaded prompt template.
type Template struct {
	Name string
	File string
	// Content is the body: after the frontmatter (trimmed), or the whole file.
	Content string
}

// LoadTemplate reads a prompt template file; its name is the file name without ".md".
func LoadTemplate(file string) (*Template, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return &Template{Name: strings.TrimSuffix(filepath.Base(file), ".md"), File: file, Content: bodyOf(string(b))}, nil
}

var commandPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^/(\S+)(?:\s+([\s\S]*))?$`) }}

// Expand is pi's expandPromptTemplate for one template: "/name args" becomes the template
// with its arguments substituted.
func (t *Template) Expand(args string) string {
	return SubstituteArgs(t.Content, ParseArgs(args))
}

// splitCommand splits "/name rest" as pi's template matcher does (the name runs to the first
// white space; the rest follows the white space after it).
func splitCommand(text string) (name, args string, ok bool) {
	m := commandPattern.Get().FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
