// Package pattern compiles and matches the tool and model name patterns of pigo's config
// (personalExtensions rules, fileIoByModel entries): minimatch's default semantics, built on
// gobwas/glob.
//
// Semantics (D8): case-sensitive; `*` and `?` do not cross `/`; `**` as a whole path segment
// crosses it (and `a/**/b` matches `a/b`); braces `{a,b}` and classes `[a-z]`, `[!a]`, `[^a]`
// work; `\` escapes; a leading `!` negates (each further `!` flips again); a leading `#` makes
// the pattern a comment that matches nothing. Known differences from minimatch: extglob
// (`@(a|b)` …) and numeric brace ranges (`{1..3}`) are not supported, a `*` may match a leading
// dot, and an unbalanced brace or class is an error instead of literal text.
//
// A pattern is compiled once and matched many times; Match never allocates.
package pattern

import (
	"fmt"
	"strings"

	"github.com/gobwas/glob"
)

// Pattern is one compiled name pattern.
type Pattern struct {
	src     string
	negate  bool
	comment bool
	g       *glob.Pattern
}

// Error is a malformed pattern: Offset is the byte offset inside the pattern text where the
// problem was found, so a caller can point at the exact byte of the JSON string (`bad-glob`).
type Error struct {
	Pattern string
	Offset  int
	Reason  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("bad pattern %q at offset %d: %s", e.Pattern, e.Offset, e.Reason)
}

var compiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// Compile compiles a minimatch-style pattern. A malformed pattern gives an *Error.
func Compile(s string) (*Pattern, error) {
	p := &Pattern{src: s}
	if strings.HasPrefix(s, "#") {
		p.comment = true
		return p, nil
	}
	start := 0
	for start < len(s) && s[start] == '!' {
		p.negate = !p.negate
		start++
	}
	body, offs := translate(s[start:])
	g, err := compiler.Compile(body)
	if err != nil {
		off, reason := start, err.Error()
		if se, ok := err.(*glob.SyntaxError); ok {
			reason = se.Reason
			o := se.Offset
			if o < 0 {
				o = 0
			}
			if o < len(offs) {
				off = start + offs[o]
			} else {
				off = len(s)
			}
		}
		return nil, &Error{Pattern: s, Offset: off, Reason: reason}
	}
	p.g = g
	return p, nil
}

// MustCompile is Compile for patterns known to be valid; it panics on a bad one.
func MustCompile(s string) *Pattern {
	p, err := Compile(s)
	if err != nil {
		panic(err)
	}
	return p
}

// translate rewrites minimatch syntax the glob compiler spells differently, keeping a map from
// each byte of the result (plus one past the end) to its offset in the input:
//   - `[^` → `[!` (both negate a class in minimatch);
//   - a run of stars that is not a whole path segment → one `*` (minimatch's `a**` is `a*`).
func translate(s string) (string, []int) {
	var b strings.Builder
	offs := make([]int, 0, len(s)+1)
	put := func(c byte, at int) { b.WriteByte(c); offs = append(offs, at) }
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			put(c, i)
			if i+1 < len(s) {
				i++
				put(s[i], i)
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
			put(c, i)
		case c == '[':
			inClass = true
			put(c, i)
			if i+1 < len(s) && s[i+1] == '^' {
				i++
				put('!', i)
			}
			// A `]` right after `[` or `[!` is a member, not the end.
			if i+1 < len(s) && s[i+1] == ']' {
				i++
				put('\\', i)
				put(']', i)
			}
		case c == '*':
			j := i
			for j < len(s) && s[j] == '*' {
				j++
			}
			whole := (i == 0 || s[i-1] == '/') && (j == len(s) || s[j] == '/')
			if j-i >= 2 && whole {
				put('*', i)
				put('*', i+1)
			} else {
				put('*', i)
			}
			i = j - 1
		default:
			put(c, i)
		}
	}
	offs = append(offs, len(s))
	return b.String(), offs
}

// Match reports whether name matches the pattern. A comment never matches; a negated pattern
// matches every name its body does not.
func (p *Pattern) Match(name string) bool {
	if p == nil || p.comment {
		return false
	}
	return p.g.Match(name) != p.negate
}

// String returns the pattern text as written.
func (p *Pattern) String() string { return p.src }

// Negated reports whether the pattern starts with an odd number of `!`.
func (p *Pattern) Negated() bool { return p.negate }

// Comment reports whether the pattern is a `#` comment (it matches nothing).
func (p *Pattern) Comment() bool { return p.comment }

// Model is the session's model as the model patterns see it.
type Model struct {
	Provider string
	ID       string
}

// Candidates returns the names a model is tried as: its id, and "provider/id" when it has a
// provider. A nil model has no candidates.
func (m *Model) Candidates() []string {
	if m == nil {
		return nil
	}
	if m.Provider == "" {
		return []string{m.ID}
	}
	return []string{m.ID, m.Provider + "/" + m.ID}
}

// MatchModel reports whether a model list matches m: an empty list matches every model and no
// model at all; a non-empty list never matches when there is no model, and otherwise matches
// when some pattern matches the id or "provider/id".
func MatchModel(pats []*Pattern, m *Model) bool {
	if len(pats) == 0 {
		return true
	}
	if m == nil {
		return false
	}
	full := ""
	if m.Provider != "" {
		full = m.Provider + "/" + m.ID
	}
	for _, p := range pats {
		if p.Match(m.ID) || (full != "" && p.Match(full)) {
			return true
		}
	}
	return false
}

// MatchAny reports whether some pattern matches name.
func MatchAny(pats []*Pattern, name string) bool {
	for _, p := range pats {
		if p.Match(name) {
			return true
		}
	}
	return false
}

// MatchStar matches name against a pattern where "*" matches any characters (pi's tool-name
// patterns of toolExposure, --tools and --exclude-tools) and nothing else is special.
func MatchStar(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, last)
}
