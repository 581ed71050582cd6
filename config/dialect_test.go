package config

import (
	"slices"
	"testing"

	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/cueschema"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

// TestTopKeysMatchSchema keeps the fallback's key lists equal to the schema's top-level fields.
func TestTopKeysMatchSchema(t *testing.T) {
	s, err := cueschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for k, keys := range topKeys {
		got := fieldNames(t, s, Definition(k))
		want := slices.Sorted(slices.Values(keys))
		if !slices.Equal(got, want) {
			t.Errorf("%s: topKeys %v, schema %v", k, want, got)
		}
	}
}

func fieldNames(t *testing.T, s *cueschema.Schema, def string) []string {
	t.Helper()
	var names []string
	v := s.Def(def)
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		names = append(names, it.Selector().Unquoted())
	}
	slices.Sort(names)
	return names
}

func TestDetectDialectFallback(t *testing.T) {
	cases := []struct {
		kind Kind
		src  string
		want string
	}{
		{Sandbox, `{"permissions": {"allow": ["Bash(git *)"]}}`, "other-extension"},
		{Sandbox, `{"fss": {"mode": "readonly"}}`, ""}, // a typo of pigo's own key: pigo's file
		{Sandbox, `{"fs": {}, "extra": 1}`, ""},
		{LSP, `{"gopls": {"cmd": ["gopls"], "extensionToLanguage": {".go": "go"}}}`, "other-extension"},
		{LSP, `{"servers": {"gopls": {"bin": "gopls"}}}`, ""},
		{Sandbox, `{}`, ""},
	}
	for _, c := range cases {
		n, err := jsonc.Parse([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if d := detectDialect(c.kind, n); d != nil {
			got = d.name
		}
		if got != c.want {
			t.Errorf("%s %s: dialect %q, want %q", c.kind, c.src, got, c.want)
		}
	}
}
