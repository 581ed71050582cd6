package llm

import (
	"encoding/json"
	"testing"
)

var unquoteSeeds = []string{
	``, `plain`, `a\"b\\c\/d\be\ff\ng\rh\ti`, `\u00e9\u2713`, `é ✓ 日本`, `\ud83d\ude00`, `\ud83d`, `\ude00x`,
	`\ud83d\u0041`, `\ud83d\ud83d\ude00`, `\ud83d\`, `\u12`, `\u12g4`, `\x`, `\`, "\xff\xfe", "a\xc3", "\xed\xa0\x80",
	`\u0000`, `\uDBFF\uDFFF`, `\uD800\uDC00tail`, "tab\tliteral",
}

// TestUnquoteMatchesEncodingJSON: the one-pass writer's string decoder reads what
// encoding/json reads (and refuses what it refuses).
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range unquoteSeeds {
		checkUnquote(t, s)
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add(s)
	}
	f.Fuzz(checkUnquote)
}

func checkUnquote(t *testing.T, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == '"' {
			return // the caller stops at these
		}
	}
	var want string
	werr := json.Unmarshal([]byte(`"`+s+`"`), &want)
	got, ok := unquote([]byte(s))
	if ok != (werr == nil) || got != want {
		t.Fatalf("unquote(%q) = %q, %v; encoding/json: %q, %v", s, got, ok, want, werr)
	}
}
