package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
)

// loadExamples loads examples/agent with examples/project as the trusted project, the way
// `pigo check --agent-dir examples/agent -C examples/project --approve` does.
func loadExamples(tb testing.TB) *config.Config {
	tb.Helper()
	approve := true
	cfg, err := config.Load(config.Options{
		AgentDir:   filepath.Join("..", "examples", "agent"),
		ProjectDir: filepath.Join("..", "examples", "project"),
		Approve:    &approve,
		Home:       tb.TempDir(), // no ~/.pi/web-search.json from the machine running the test
		Getenv:     func(string) string { return "" },
	})
	if err != nil {
		tb.Fatal(err)
	}
	cfg.AddEmbedded()
	return cfg
}

// TestExamplesClean is the dogfood test: the shipped examples must give no error and no
// warning (engine warnings such as unmatched patterns included).
func TestExamplesClean(t *testing.T) {
	cfg := loadExamples(t)
	list := cfg.Check()
	var b strings.Builder
	diag.WriteText(&b, list, diag.Style{})
	errs, warns, _ := list.Count()
	if errs+warns > 0 {
		t.Errorf("examples: %d errors, %d warnings:\n%s", errs, warns, b.String())
	}
	// Every example file is found, parsed and applied.
	want := map[string]config.Kind{
		"agent/settings.json": config.Settings, "agent/sandbox.json": config.Sandbox, "agent/lsp.json": config.LSP,
		"agent/models.json": config.Models, "agent/spawn-agent.json": config.SpawnAgent,
		"agent/agents/scout.md": config.Agent, "agent/agents/reviewer.md": config.Agent,
		"agent/prompts/review.md": config.Prompt, "agent/skills/commit/SKILL.md": config.Skill,
		"agent/extensions/git-tools.jsonc": config.Extension,
		"project/.pi/settings.json":        config.Settings, "project/.pi/sandbox.json": config.Sandbox,
		"project/.pi/lsp.json": config.LSP, "project/.pi/agents/tester.md": config.Agent,
		"project/.pi/prompts/explain.md": config.Prompt,
	}
	for _, f := range cfg.Files {
		if f.Scope == config.Builtin {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join("..", "examples"), f.Path)
		rel = filepath.ToSlash(rel)
		k, ok := want[rel]
		if !ok {
			t.Errorf("unexpected file %s", rel)
			continue
		}
		delete(want, rel)
		if f.Kind != k || !f.Applied || f.Broken {
			t.Errorf("%s: kind %s applied %v broken %v, want kind %s applied", rel, f.Kind, f.Applied, f.Broken, k)
		}
	}
	for rel := range want {
		t.Errorf("example file %s was not loaded", rel)
	}
	if !cfg.Trusted {
		t.Errorf("project not trusted: %s", cfg.TrustReason)
	}
}

// ExampleLoad checks a global agent dir and a project overlay and prints the summary that
// `pigo check` prints.
func ExampleLoad() {
	approve := true
	cfg, err := config.Load(config.Options{
		AgentDir:   "../examples/agent",
		ProjectDir: "../examples/project",
		Approve:    &approve,
		Home:       os.TempDir(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	list := cfg.Check()
	errs, warns, _ := list.Count()
	fmt.Printf("%d errors, %d warnings; trusted: %v (%s)\n", errs, warns, cfg.Trusted, cfg.TrustReason)
	// Output: 0 errors, 0 warnings; trusted: true (--approve)
}

// ExampleConfig_Effective prints merged values of the example overlay: the project's
// approval rule comes after the global ones, and a project server joins the global one.
func ExampleConfig_Effective() {
	approve := true
	cfg, err := config.Load(config.Options{AgentDir: "../examples/agent", ProjectDir: "../examples/project", Approve: &approve, Home: os.TempDir()})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Check()
	sb, err := cfg.Effective(config.Sandbox)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range sb.Root.Get("approvalRules").Elems {
		fmt.Printf("%s %s (%s)\n", r.Get("action").JSON(), r.Get("pattern").JSON(), filepath.Base(filepath.Dir(r.File.Path)))
	}
	lsp, err := cfg.Effective(config.LSP)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range lsp.Root.Get("servers").Members {
		fmt.Println("server", m.Key)
	}
	// Output:
	// "allow" "git status *" (agent)
	// "allow" "go test *" (agent)
	// "deny" "git push *" (agent)
	// "deny" "make deploy*" (.pi)
	// server gopls
	// server golangci
}

// ExampleKindOfPath shows how `pigo check PATH` decides what a file is.
func ExampleKindOfPath() {
	for _, p := range []string{"settings.json", ".pi/bwrap.json", "agents/scout.md", "skills/commit/SKILL.md", "extensions/git.jsonc"} {
		k, legacy := config.KindOfPath(p)
		fmt.Println(p, k, legacy)
	}
	// Output:
	// settings.json settings false
	// .pi/bwrap.json sandbox true
	// agents/scout.md agent false
	// skills/commit/SKILL.md skill false
	// extensions/git.jsonc extension false
}
