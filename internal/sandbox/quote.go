package sandbox

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// QuoteWords joins words into one bash command line, each quoted as one word (an argv that
// must reach a program exactly, never re-parsed by a shell).
func QuoteWords(words []string) (string, error) {
	q := make([]string, len(words))
	for i, w := range words {
		s, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("cannot quote %q for the shell: %v", w, err)
		}
		q[i] = s
	}
	return strings.Join(q, " "), nil
}
