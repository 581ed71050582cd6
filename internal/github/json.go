package github

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sync"
)

// jsonResult is a result whose text is the value as indented JSON, as the seed's REST-backed
// tools print it (JSON.stringify(value, null, 2)).
func jsonResult(v any) Result {
	return Result{Text: pretty(v), Value: v}
}

func pretty(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// lazyRE compiles a pattern on first use, so the package adds no init work to every pigo
// process (the GitHub tools run in few of them).
func lazyRE(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
