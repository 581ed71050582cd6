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

// TestModelIndexAllocs: the index is built with one slice of the catalogue's size, and each
// provider's name is lowered once, not once per model (it grew the slice a step at a time).
func TestModelIndexAllocs(t *testing.T) {
	c := &Config{}
	n := testing.AllocsPerRun(10, func() {
		c.models = nil
		c.modelIndex()
	})
	if n > 24 {
		t.Errorf("modelIndex: %v allocations", n)
	}
	ix := c.modelIndex()
	seen := map[string]bool{}
	for _, p := range ix.providers {
		if seen[strings.ToLower(p)] {
			t.Errorf("provider %s listed twice", p)
		}
		seen[strings.ToLower(p)] = true
	}
	for i := range builtinModels() {
		if p := builtinModels()[i].provider.str(); !seen[strings.ToLower(p)] {
			t.Errorf("provider %s missing", p)
		}
	}
	i := 0
	for m := range ix.all {
		if b := builtinModels()[i].model(); m.provider != b.Provider || m.id != b.ID {
			t.Fatalf("model %d: %v, the catalogue has %s/%s", i, m, b.Provider, b.ID)
		}
		i++
	}
	if i != len(builtinModels()) {
		t.Errorf("%d models, the catalogue has %d", i, len(builtinModels()))
	}
	// The catalogue (2,000 models) is read in place: a copy of it was 64 KB of every start
	// that checks a model reference (pigo tools --model); the index is its providers.
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.models = nil
			c.modelIndex()
		}
	})
	if r.AllocedBytesPerOp() > 8<<10 {
		t.Errorf("modelIndex allocates %d bytes: the catalogue is copied", r.AllocedBytesPerOp())
	}
}

func BenchmarkModelIndex(b *testing.B) {
	c := &Config{}
	for b.Loop() {
		c.models = nil
		c.modelIndex()
	}
}
