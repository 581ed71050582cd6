package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/engines"
)

// TestEngineToolsNeedHelper: web_fetch, codemode and the talk tools run their engines in the
// pigo-engines helper, so without it they are unavailable and say why; with it (TestMain's
// link, as an installed pigo has it beside itself) they are active.
func TestEngineToolsNeedHelper(t *testing.T) {
	resolve := func() map[string]string {
		t.Helper()
		approve := true
		cfg, err := config.Load(config.Options{AgentDir: t.TempDir(), ProjectDir: t.TempDir(), Approve: &approve,
			Home: t.TempDir(), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cfg.Resolve(config.ResolveOptions{Model: "zhipu/glm-4.6"})
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		for _, tr := range res.Tools.Tools {
			states[tr.Name] = string(tr.State) + ": " + tr.Reason
		}
		return states
	}
	names := []string{"web_fetch", "codemode", "talk-list-agents", "talk-ask", "talk-send", "talk-reply"}
	with := resolve()
	for _, n := range names {
		if with[n] != "active: extension tools start active" {
			t.Errorf("%s with the helper: %q", n, with[n])
		}
	}
	t.Setenv(engines.EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	if exe, _ := os.Executable(); fileExists(filepath.Join(filepath.Dir(exe), engines.Name)) {
		t.Skip("a pigo-engines lies beside the test binary")
	}
	without := resolve()
	for _, n := range names {
		if got := without[n]; !strings.HasPrefix(got, "unavailable: ") || !strings.Contains(got, "condition `which(\"pigo-engines\")` is false") {
			t.Errorf("%s without the helper: %q", n, got)
		}
	}
	if with["web_search"] != without["web_search"] || with["read"] != without["read"] {
		t.Errorf("tools that need no engine changed: web_search %q → %q, read %q → %q", with["web_search"], without["web_search"], with["read"], without["read"])
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
