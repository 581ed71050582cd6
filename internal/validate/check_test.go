package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
)

func run(t *testing.T, def, text string, mode Mode) []string {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	src := diag.NewSource("f.json", []byte(text))
	n, err := jsonc.Parse(src.Text)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range s.Check(src, n, def, Options{Mode: mode}).Sort() {
		l, c := d.Pos()
		s := fmt.Sprintf("%d:%d %s %s: %s", l, c, d.Severity, d.Code, d.Message)
		if d.Hint != "" {
			s += " (" + d.Hint + ")"
		}
		out = append(out, s)
	}
	return out
}

func TestCheckCases(t *testing.T) {
	cases := []struct {
		name, def, text string
		mode            Mode
		want            []string
	}{
		{"valid settings", "#Settings", `{"theme": "light", "compaction": {"enabled": false}, "personalExtensions": {"fileIo": "opencode"}}`, UserConfig, nil},
		{"enum", "#Settings", "{\n  \"personalExtensions\": {\"fileIo\": \"opencod\"}\n}", UserConfig,
			[]string{`2:36 error schema: personalExtensions.fileIo: expected "claude-code" or "opencode", got "opencod" (did you mean "opencode"?)`}},
		{"bound", "#Settings", `{"editorPaddingX": 5}`, UserConfig,
			[]string{`1:20 error schema: editorPaddingX: 5 is out of range (must be <=3)`}},
		{"type", "#Settings", `{"quietStartup": "yes"}`, UserConfig,
			[]string{`1:18 error schema: quietStartup: expected a boolean, got "yes"`}},
		{"unknown info", "#Settings", `{"powerline": {"x": 1}}`, UserConfig,
			[]string{`1:2 info unknown-field: unknown field "powerline" (not read by pigo; it may belong to another extension)`}},
		{"near miss", "#Settings", `{"defaultTool": ["read"]}`, UserConfig,
			[]string{`1:2 warning unknown-field: unknown field "defaultTool" (did you mean "defaultTools"?)`}},
		{"owned section", "#Settings", `{"personalExtensions": {"zap": 1}}`, UserConfig,
			[]string{`1:25 warning unknown-field: unknown field "zap"`}},
		{"rule list", "#Settings", `{"personalExtensions": {"disabledTools": ["a", {"tools": "x"}, 42]}}`, UserConfig,
			[]string{`1:58 error schema: personalExtensions.disabledTools[1].tools: expected an array, got "x"`,
				`1:64 error schema: personalExtensions.disabledTools[2]: expected a string or an object, got 42`}},
		{"required", "#Settings", `{"visionConfig": {"provider": "x"}}`, UserConfig,
			[]string{`1:18 error schema: visionConfig: missing required field "model"`}},
		{"required and other error", "#Settings", `{"sessionName": {"maxLength": "x"}}`, UserConfig,
			[]string{`1:17 error schema: sessionName: missing required field "model"`, `1:31 error schema: sessionName.maxLength: expected an integer, got "x"`}},
		{"lsp servers", "#LSP", `{"servers": {"gopls": {"bin": 42, "kind": "lang"}}}`, UserConfig,
			[]string{`1:31 error schema: servers.gopls.bin: expected a string, got 42`, `1:43 error schema: servers.gopls.kind: expected "language" or "linter", got "lang" (did you mean "language"?)`}},
		{"duplicate", "#Settings", "{\"theme\": \"a\",\n \"theme\": \"b\"}", UserConfig,
			[]string{`2:2 warning duplicate-key: duplicate key "theme": this value replaces the one on line 1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := run(t, c.def, c.text, c.mode)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestCheckMinItemsList(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{`{"tools": [{"name": "t", "description": "d", "parameters": {"type": "object"}, "exec": ["git", "log"]}]}`, nil},
		{`{"tools": [{"name": "t", "description": "d", "parameters": {"type": "object"}, "exec": ["git", 4]}]}`,
			[]string{`1:96 error schema: tools[0].exec[1]: expected a string, got 4`}},
		{`{"tools": [{"name": "t", "description": "d", "parameters": {"type": "object"}, "exec": []}]}`,
			[]string{`1:88 error schema: tools[0].exec: must not be empty`}},
		{`{"tools": [{"name": "t", "description": "d", "parameters": {"type": "object"}, "exec": "git"}]}`,
			[]string{`1:88 error schema: tools[0].exec: expected an array, got "git"`}},
	} {
		got := run(t, "#Extension", c.text, Declaration)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.text, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
