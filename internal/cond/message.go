package cond

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// What a `when` condition can name (D7), for did-you-mean hints.
var (
	condNames  = []string{"model", "os", "arch", "headless", "settings", "env", "which", "lsp", "len", "all", "any", "none", "filter", "map", "lower", "upper", "trim", "split", "contains", "startsWith", "endsWith", "matches"}
	condFields = map[string][]string{
		"model": {"provider", "id", "reasoning", "input", "contextWindow", "maxTokens"},
		"lsp":   {"servers"},
	}
	// goTypes maps the Go type names of the expression library's messages to what a user of
	// the configuration knows. The patterns are compiled on the first error message (package
	// initialisation is paid by every pigo process; an error message by few).
	goTypes = lazy.Value[[]goType]{New: func() []goType {
		return []goType{
			{regexp.MustCompile(`\bcond\.Model\b`), "model"},
			{regexp.MustCompile(`\bcond\.LSP\b`), "lsp"},
			{regexp.MustCompile(`\bcond\.Env\b`), "the condition environment"},
			{regexp.MustCompile(`\[\]string\b`), "list of strings"},
			{regexp.MustCompile(`\[\]interface \{\}`), "list"},
			{regexp.MustCompile(`map\[string\]interface \{\}`), "object"},
			{regexp.MustCompile(`map\[string\]string\b`), "object of strings"},
			{regexp.MustCompile(`\binterface \{\}`), "any value"},
			{regexp.MustCompile(`\bfloat64\b`), "number"},
			{regexp.MustCompile(`\bint\b`), "number"},
			{regexp.MustCompile(`\bbool\b`), "boolean"},
			{regexp.MustCompile(`\bfunc\([^)]*\) [a-z]+\b`), "function"},
		}
	}}
	noField     = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^type (.+) has no field (\S+)$`) }}
	unknownName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^unknown name (\S+)$`) }}
)

type goType struct {
	re  *regexp.Regexp
	say string
}

// Friendly rewrites a compile error message of the expression library so that it never shows
// Go type names, and returns a did-you-mean hint for a misspelt name or field. Every caller
// that shows a condition error (check, the engine's warnings) uses it.
func Friendly(msg string) (string, string) {
	msg = strings.TrimSpace(msg)
	if m := noField.Get().FindStringSubmatch(msg); m != nil {
		owner := friendlyTypes(m[1])
		hint := ""
		if s := suggest(m[2], condFields[owner]); s != "" {
			hint = fmt.Sprintf("did you mean %s.%s?", owner, s)
		} else if fs := condFields[owner]; len(fs) > 0 {
			hint = fmt.Sprintf("%s has: %s", owner, strings.Join(fs, ", "))
		}
		if _, ok := condFields[owner]; ok {
			return fmt.Sprintf("%s has no field %q", owner, m[2]), hint
		}
		return fmt.Sprintf("a %s has no field %q", owner, m[2]), hint
	}
	if m := unknownName.Get().FindStringSubmatch(msg); m != nil {
		hint := ""
		if s := suggest(m[1], condNames); s != "" {
			hint = fmt.Sprintf("did you mean %s?", s)
		}
		return fmt.Sprintf("unknown name %q", m[1]), hint
	}
	return friendlyTypes(msg), ""
}

func friendlyTypes(s string) string {
	for _, t := range goTypes.Get() {
		s = t.re.ReplaceAllString(s, t.say)
	}
	return s
}

// suggest returns the candidate closest to s within a small edit distance, or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(s) >= 5 {
		limit = 2
	}
	if bestD <= limit {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
