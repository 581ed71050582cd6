package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/validate"
)

// What a `when` condition can name (D7), for did-you-mean hints.
var (
	condNames  = []string{"model", "os", "arch", "headless", "settings", "env", "which", "lsp", "len", "all", "any", "none", "filter", "map", "lower", "upper", "trim", "split", "contains", "startsWith", "endsWith", "matches"}
	condFields = map[string][]string{
		"model": {"provider", "id", "reasoning", "input", "contextWindow", "maxTokens"},
		"lsp":   {"servers"},
	}
	// goTypes maps the Go type names of the expression library's messages to what a user of
	// the configuration knows.
	goTypes = []struct {
		re  *regexp.Regexp
		say string
	}{
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
	noField     = regexp.MustCompile(`^type (.+) has no field (\S+)$`)
	unknownName = regexp.MustCompile(`^unknown name (\S+)$`)
)

// condMessage rewrites an expression compiler message so that it never shows Go type names, and
// returns a did-you-mean hint for a misspelt name or field.
func condMessage(msg string) (string, string) {
	msg = strings.TrimSpace(msg)
	if m := noField.FindStringSubmatch(msg); m != nil {
		owner := friendlyTypes(m[1])
		hint := ""
		if s := validate.Suggest(m[2], condFields[owner]); s != "" {
			hint = fmt.Sprintf("did you mean %s.%s?", owner, s)
		} else if fs := condFields[owner]; len(fs) > 0 {
			hint = fmt.Sprintf("%s has: %s", owner, strings.Join(fs, ", "))
		}
		if _, ok := condFields[owner]; ok {
			return fmt.Sprintf("%s has no field %q", owner, m[2]), hint
		}
		return fmt.Sprintf("a %s has no field %q", owner, m[2]), hint
	}
	if m := unknownName.FindStringSubmatch(msg); m != nil {
		hint := ""
		if s := validate.Suggest(m[1], condNames); s != "" {
			hint = fmt.Sprintf("did you mean %s?", s)
		}
		return fmt.Sprintf("unknown name %q", m[1]), hint
	}
	return friendlyTypes(msg), ""
}

func friendlyTypes(s string) string {
	for _, t := range goTypes {
		s = t.re.ReplaceAllString(s, t.say)
	}
	return s
}
