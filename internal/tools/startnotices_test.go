package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	aftcfg "github.com/pigo-agent/pigo/internal/aft"
	"github.com/pigo-agent/pigo/internal/github"
	"github.com/pigo-agent/pigo/internal/tools/aft"
)

// StartNotices: aft missing is a warning naming where it was looked for; gh missing the
// seed's error; a toolset that disabledTools turns off says nothing, though its tools are
// unavailable anyway (their condition is false).
func TestStartNotices(t *testing.T) {
	resolve := func(settings string) []aft.Notice {
		t.Helper()
		root := t.TempDir()
		agent := filepath.Join(root, "agent")
		if err := os.MkdirAll(agent, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
		no := false
		cfg, err := config.Load(config.Options{AgentDir: agent, ProjectDir: root, Home: root, Approve: &no,
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cfg.Resolve(config.ResolveOptions{Headless: true})
		if err != nil {
			t.Fatal(err)
		}
		return aft.StartNotices(res.Tools, aft.AFTStart{Tried: []string{"PATH"}, Config: aftcfg.Config{Enabled: true}})
	}
	got := map[string]aft.Notice{}
	for _, n := range resolve(`{}`) {
		got[n.Code] = n
	}
	if n := got["aft-missing"]; n.Level != "warning" || !strings.HasPrefix(n.Text, "aft: the aft binary was not found (looked in PATH);") {
		t.Errorf("aft missing: %+v", n)
	}
	if github.Unavailable() == github.MissingGhText {
		if n := got["gh-missing"]; n.Level != "error" || n.Text != github.MissingGhText {
			t.Errorf("gh missing: %+v", n)
		}
	}
	if n := resolve(`{"personalExtensions": {"disabledTools": ["aft_*", "*-github-*"]}}`); len(n) != 0 {
		t.Errorf("disabled toolsets: %+v", n)
	}
	// Re-enabled by enabledTools: the notice is back.
	n := resolve(`{"personalExtensions": {"disabledTools": ["aft_*"], "enabledTools": ["aft_zoom"]}}`)
	found := false
	for _, x := range n {
		found = found || x.Code == "aft-missing"
	}
	if !found {
		t.Errorf("aft_zoom enabled again, no aft notice: %+v", n)
	}
}
