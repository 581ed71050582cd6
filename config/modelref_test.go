package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/diag"
)

// TestModelRefSeverity: a typo of a built-in provider warns; a name that extends one on
// purpose, a provider of an (even untrusted) project's models.json, a newer model id and a
// case difference do not.
func TestModelRefSeverity(t *testing.T) {
	cases := []struct {
		settings string
		sev      string // "" = no finding
	}{
		{`{"defaultProvider": "antropic", "defaultModel": "claude-sonnet-4-5"}`, "warning"},
		{`{"defaultProvider": "openrouter2", "defaultModel": "x"}`, "info"},
		{`{"defaultProvider": "zai-coding", "defaultModel": "glm-4.7"}`, "info"},
		{`{"defaultProvider": "mylocal", "defaultModel": "qwen"}`, ""},
		{`{"defaultProvider": "openai-codex", "defaultModel": "gpt-9.9-nova"}`, "info"},
		{`{"defaultProvider": "openai-codex", "defaultModel": "gpt-6.1-sol"}`, ""}, // in pi 1.6's catalogue
		{`{"defaultProvider": "Anthropic", "defaultModel": "Claude-Sonnet-4-5:high"}`, ""},
		{`{"defaultModel": "anthropic/claude-sonnet-4-5:xhigh"}`, ""},
	}
	for _, tc := range cases {
		home, proj := t.TempDir(), t.TempDir()
		write(t, filepath.Join(home, ".pi", "agent", "settings.json"), tc.settings)
		write(t, filepath.Join(proj, ".pi", "models.json"), `{"providers": {"mylocal": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "models": [{"id": "qwen"}]}}}`)
		c := load(t, home, proj, ptr(false))
		got := ""
		for _, d := range c.checkModelRefs() {
			if got != "" {
				t.Errorf("%s: more than one finding", tc.settings)
			}
			got = map[diag.Severity]string{diag.Warning: "warning", diag.Info: "info", diag.Error: "error"}[d.Severity]
			if got == "warning" && !strings.Contains(d.Hint, "did you mean") {
				t.Errorf("%s: warning without a did-you-mean: %+v", tc.settings, d)
			}
		}
		if got != tc.sev {
			t.Errorf("%s: %q, want %q", tc.settings, got, tc.sev)
		}
	}
}
