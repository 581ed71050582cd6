package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/catalog"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
)

// TestToEngineAllocs: an extension's tools and commands are converted into slices sized
// once (one allocation each), not grown by append through every doubling.
func TestToEngineAllocs(t *testing.T) {
	shipped, err := catalog.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for i := range shipped {
		e := &shipped[i]
		src := diag.NewSource(e.File, e.Src)
		want := 0.0
		if len(e.Tools) > 0 {
			want++
		}
		if len(e.Commands) > 0 {
			want++
		}
		var out engine.Extension
		n := testing.AllocsPerRun(20, func() { out = toEngine(e, src, engine.Source{Kind: engine.KindToolset, Name: e.Name, File: e.File}) })
		if n != want {
			t.Errorf("%s (%d tools, %d commands): %v allocations, want %v", e.File, len(e.Tools), len(e.Commands), n, want)
		}
		if len(out.Tools) != len(e.Tools) || len(out.Commands) != len(e.Commands) {
			t.Errorf("%s: %d tools and %d commands, want %d and %d", e.File, len(out.Tools), len(out.Commands), len(e.Tools), len(e.Commands))
		}
	}
}

// TestSettingsAndEnvConditions: extension tools whose conditions read settings and env
// (evaluated by expr, with the maps condEnv builds when first needed) resolve as the merged
// settings and the environment say; the others are not affected.
func TestSettingsAndEnvConditions(t *testing.T) {
	agent := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(agent, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(agent, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("settings.json", `{"theme": "dark", "compaction": {"enabled": true}}`)
	write("extensions/conds.jsonc", `{"name": "conds", "tools": [
  {"name": "t_dark", "description": "d", "parameters": {"type": "object"}, "when": "settings.theme == 'dark'", "exec": ["true"]},
  {"name": "t_light", "description": "d", "parameters": {"type": "object"}, "when": "settings.theme == 'light'", "exec": ["true"]},
  {"name": "t_nested", "description": "d", "parameters": {"type": "object"}, "when": "settings.compaction.enabled == true", "exec": ["true"]},
  {"name": "t_env", "description": "d", "parameters": {"type": "object"}, "when": "env.PIGO_COND_TEST == 'yes'", "exec": ["true"]},
  {"name": "t_plain", "description": "d", "parameters": {"type": "object"}, "when": "os != 'plan9'", "exec": ["true"]}]}`)
	t.Setenv("PIGO_COND_TEST", "yes")
	cfg, err := Load(Options{AgentDir: agent, ProjectDir: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]engine.State{"t_dark": engine.Active, "t_light": engine.Unavailable,
		"t_nested": engine.Active, "t_env": engine.Active, "t_plain": engine.Active}
	for _, tr := range res.Tools.Tools {
		if w, ok := want[tr.Name]; ok {
			if tr.State != w {
				t.Errorf("%s: %s (%s), want %s", tr.Name, tr.State, tr.Reason, w)
			}
			delete(want, tr.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("not resolved: %v", want)
	}
}
