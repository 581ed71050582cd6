package config

import (
	"regexp"
	"strings"
	"sync"
)

// The JSON parser's wording for the commonest mistakes, and what pigo says instead: the user
// sees the cause ("missing comma") rather than the symptom ("invalid character").
var (
	afterValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid character '(.+)' after (object|array) value \(expecting ',' or '([}\]])'\)$`)
	})
	afterName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid character '(.+)' after object name$`) })
	startValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid character ',' at start of value$`) })
)

// syntaxMessage rewords a JSON syntax error so that a missing comma or colon says so.
func syntaxMessage(msg string) string {
	if m := afterValue().FindStringSubmatch(msg); m != nil {
		what := "members"
		if m[2] == "array" {
			what = "elements"
		}
		if startsValue(m[1]) {
			return "missing comma between " + what + ": expected ',' or '" + m[3] + "' before '" + m[1] + "'"
		}
		return "unexpected '" + m[1] + "': expected ',' or '" + m[3] + "'"
	}
	if m := afterName().FindStringSubmatch(msg); m != nil {
		return "missing colon after the key: expected ':' before '" + m[1] + "'"
	}
	if startValue().MatchString(msg) {
		return "unexpected ',': a value is missing (two commas in a row, or a comma before the first item)"
	}
	return msg
}

// startsValue reports whether a character can begin a JSON value (or a key).
func startsValue(c string) bool {
	return c == `"` || c == "{" || c == "[" || c == "-" || strings.ContainsAny(c, "0123456789tfn") && len(c) == 1
}
