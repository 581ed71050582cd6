package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/config"
)

// writeTree writes files (paths relative to root, "home/..." for the agent dir side and "proj/..."
// for the project) and returns root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// loadTree loads root/home as $HOME and root/proj as the project; approve nil decides from
// trust.json and defaultProjectTrust.
func loadTree(t *testing.T, root string, approve *bool) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{
		Home:       filepath.Join(root, "home"),
		ProjectDir: filepath.Join(root, "proj"),
		Approve:    approve,
		Getenv:     func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// agentView is the part of a resolved agent the table compares.
type agentView struct {
	Name, Scope, Tools, Model, Provider, Thinking, Sandbox string
}

func viewAgents(as []config.ResolvedAgent) []agentView {
	var out []agentView
	for _, a := range as {
		sb := a.Sandbox.FSMode + "/" + a.Sandbox.NetMode
		if len(a.Sandbox.ExtraWritablePaths) > 0 {
			sb += " +" + strings.Join(a.Sandbox.ExtraWritablePaths, ",")
		}
		if a.SandboxFromFrontmatter {
			sb += " (frontmatter)"
		}
		out = append(out, agentView{Name: a.Name, Scope: a.Scope, Tools: strings.Join(a.Tools, " "), Model: a.Model,
			Provider: a.Provider, Thinking: a.ThinkingLevel, Sandbox: sb})
	}
	return out
}

const (
	agentDir   = "home/.pi/agent/"
	userAgents = agentDir + "agents/"
	projAgents = "proj/.pi/agents/"
)

func TestAgents(t *testing.T) {
	yes := true
	def := "readonly/block"
	tests := []struct {
		name    string
		files   map[string]string
		approve *bool
		want    []agentView
		// skipped: file base name → substring of the reason
		skipped map[string]string
	}{
		{
			name:  "defaults",
			files: map[string]string{userAgents + "scout.md": "---\ndescription: Recon\n---\nLook.\n"},
			want:  []agentView{{Name: "scout", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name: "tools as a list, as a comma string, and empty",
			files: map[string]string{
				userAgents + "a.md": "---\ndescription: A\ntools:\n  - read\n  - bash\n---\n",
				userAgents + "b.md": "---\ndescription: B\ntools: read, bash ,, edit\n---\n",
				userAgents + "c.md": "---\ndescription: C\ntools: []\n---\n",
			},
			want: []agentView{
				{Name: "a", Scope: "user", Tools: "read bash", Sandbox: def},
				{Name: "b", Scope: "user", Tools: "read bash edit", Sandbox: def},
				{Name: "c", Scope: "user", Tools: "", Sandbox: def},
			},
		},
		{
			name:  "frontmatter name wins over the file name",
			files: map[string]string{userAgents + "file.md": "---\nname: worker\ndescription: W\n---\n"},
			want:  []agentView{{Name: "worker", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name: "provider/model is self-contained",
			files: map[string]string{
				userAgents + "a.md":        "---\ndescription: A\nprovider: zhipu\nmodel: openai/gpt-5\n---\n",
				agentDir + "settings.json": `{"defaultProvider": "anthropic"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "gpt-5", Provider: "openai", Sandbox: def}},
		},
		{
			name: "bare model takes the frontmatter provider",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\nprovider: zhipu\nmodel: glm-4.6\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "openai"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "glm-4.6", Provider: "zhipu", Sandbox: def}},
		},
		{
			name: "bare model takes spawn-agent.json's provider",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\nmodel: glm-4.6\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "zhipu"}`,
				agentDir + "settings.json":    `{"defaultProvider": "anthropic"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "glm-4.6", Provider: "zhipu", Sandbox: def}},
		},
		{
			name: "settings defaults apply behind a valid spawn-agent.json",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"thinkingLevel": "low"}`,
				agentDir + "settings.json":    `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5", "defaultThinkingLevel": "high"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "claude-sonnet-4-5", Provider: "anthropic", Thinking: "low", Sandbox: def}},
		},
		{
			name: "no spawn-agent.json: no settings defaults",
			files: map[string]string{
				userAgents + "a.md":        "---\ndescription: A\nmodel: glm-4.6\n---\n",
				agentDir + "settings.json": `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5", "defaultThinkingLevel": "high"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "glm-4.6", Sandbox: def}},
		},
		{
			name: "broken spawn-agent.json: no defaults at all",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "zhipu", "model": `,
				agentDir + "settings.json":    `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name: "spawn-agent.json with a wrong type: no defaults",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "zhipu", "thinkingLevel": "max"}`,
				agentDir + "settings.json":    `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name: "empty and blank spawn-agent.json set nothing: no settings defaults",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "  ", "model": ""}`,
				agentDir + "settings.json":    `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name: "spawn-agent.json model with a level suffix",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"model": "zhipu/glm-4.6:high"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "glm-4.6", Provider: "zhipu", Thinking: "high", Sandbox: def}},
		},
		{
			name: "thinking: thinkingLevel > thinking > model suffix > spawn-agent.json > settings",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\nmodel: p/m:low\nthinking: medium\nthinkingLevel: high\n---\n",
				userAgents + "b.md":           "---\ndescription: B\nmodel: p/m:low\nthinking: medium\n---\n",
				userAgents + "c.md":           "---\ndescription: C\nmodel: p/m:low\n---\n",
				userAgents + "d.md":           "---\ndescription: D\nmodel: p/m\n---\n",
				userAgents + "e.md":           "---\ndescription: E\n---\n",
				agentDir + "spawn-agent.json": `{"thinkingLevel": "minimal", "model": "q/n"}`,
				agentDir + "settings.json":    `{"defaultThinkingLevel": "xhigh"}`,
			},
			want: []agentView{
				{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "m", Provider: "p", Thinking: "high", Sandbox: def},
				{Name: "b", Scope: "user", Tools: "read grep find ls", Model: "m", Provider: "p", Thinking: "medium", Sandbox: def},
				{Name: "c", Scope: "user", Tools: "read grep find ls", Model: "m", Provider: "p", Thinking: "low", Sandbox: def},
				{Name: "d", Scope: "user", Tools: "read grep find ls", Model: "m", Provider: "p", Thinking: "minimal", Sandbox: def},
				{Name: "e", Scope: "user", Tools: "read grep find ls", Model: "n", Provider: "q", Thinking: "minimal", Sandbox: def},
			},
		},
		{
			name: "settings thinking level max is not a sub-agent level: ignored",
			files: map[string]string{
				userAgents + "a.md":           "---\ndescription: A\n---\n",
				agentDir + "spawn-agent.json": `{"provider": "zhipu"}`,
				agentDir + "settings.json":    `{"defaultThinkingLevel": "max"}`,
			},
			want: []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
		},
		{
			name:  "a colon that is not a level stays in the model id",
			files: map[string]string{userAgents + "a.md": "---\ndescription: A\nmodel: ollama/llama3:8b\n---\n"},
			want:  []agentView{{Name: "a", Scope: "user", Tools: "read grep find ls", Model: "llama3:8b", Provider: "ollama", Sandbox: def}},
		},
		{
			name: "frontmatter sandbox is completed with the sandbox.json defaults",
			files: map[string]string{
				userAgents + "a.md":       "---\ndescription: A\nsandbox:\n  fs:\n    mode: readonly\n    extraWritablePaths: [/tmp]\n---\n",
				userAgents + "b.md":       "---\ndescription: B\nsandbox:\n  network:\n    mode: allow-all\n---\n",
				userAgents + "c.md":       "---\ndescription: C\nsandbox: {}\n---\n",
				agentDir + "sandbox.json": `{"fs": {"mode": "allow-all"}, "network": {"mode": "allow-all"}}`,
			},
			want: []agentView{
				{Name: "a", Scope: "user", Tools: "read grep find ls", Sandbox: "readonly/block +/tmp (frontmatter)"},
				{Name: "b", Scope: "user", Tools: "read grep find ls", Sandbox: "workspace-write/allow-all (frontmatter)"},
				{Name: "c", Scope: "user", Tools: "read grep find ls", Sandbox: "workspace-write/block (frontmatter)"},
			},
		},
		{
			name: "the trusted project wins a name clash",
			files: map[string]string{
				userAgents + "scout.md": "---\ndescription: User scout\n---\n",
				projAgents + "scout.md": "---\ndescription: Project scout\ntools: read\n---\n",
			},
			approve: &yes,
			want:    []agentView{{Name: "scout", Scope: "project", Tools: "read", Sandbox: def}},
			skipped: map[string]string{"scout.md": `the name "scout" is taken by`},
		},
		{
			name: "an untrusted project's agents are skipped",
			files: map[string]string{
				userAgents + "scout.md": "---\ndescription: User scout\n---\n",
				projAgents + "scout.md": "---\ndescription: Project scout\ntools: read\n---\n",
			},
			want:    []agentView{{Name: "scout", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
			skipped: map[string]string{"scout.md": "the project is not trusted"},
		},
		{
			name: "broken files are skipped with the reason and its position",
			files: map[string]string{
				userAgents + "nodesc.md":  "---\nname: nodesc\n---\n",
				userAgents + "badyaml.md": "---\ndescription: [unclosed\n---\n",
				userAgents + "plain.md":   "# just notes\n",
				userAgents + "level.md":   "---\ndescription: L\nthinkingLevel: max\n---\n",
				userAgents + "ok.md":      "---\ndescription: fine\n---\n",
			},
			want: []agentView{{Name: "ok", Scope: "user", Tools: "read grep find ls", Sandbox: def}},
			skipped: map[string]string{
				"nodesc.md":  `2:1: missing required field "description"`,
				"badyaml.md": "2:",
				"plain.md":   "not a sub-agent definition",
				"level.md":   "3:16: ",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := loadTree(t, writeTree(t, tt.files), tt.approve)
			agents, skipped := cfg.Agents()
			if diff := cmp.Diff(tt.want, viewAgents(agents)); diff != "" {
				t.Errorf("agents (-want +got):\n%s", diff)
			}
			got := map[string]string{}
			for _, s := range skipped {
				got[filepath.Base(s.File)] = s.Reason
			}
			if len(got) != len(tt.skipped) {
				t.Errorf("skipped = %v, want %d entries", got, len(tt.skipped))
			}
			for base, want := range tt.skipped {
				if !strings.Contains(got[base], want) {
					t.Errorf("skipped %s: reason %q, want it to contain %q", base, got[base], want)
				}
			}
		})
	}
}

func TestAgentLookup(t *testing.T) {
	cfg := loadTree(t, writeTree(t, map[string]string{
		userAgents + "scout.md":  "---\ndescription: Recon\nmodel: zhipu/glm-4.6\n---\nBody text.\n",
		userAgents + "broken.md": "---\nname: broken\n---\n",
	}), nil)
	a, err := cfg.Agent("scout")
	if err != nil {
		t.Fatal(err)
	}
	if a.ModelRef() != "zhipu/glm-4.6" || a.Prompt != "Body text.\n" || a.Description != "Recon" {
		t.Errorf("scout = %+v", a)
	}
	_, err = cfg.Agent("nope")
	if err == nil || err.Error() != `unknown agent "nope" (available: scout: Recon)` {
		t.Errorf("unknown agent error = %v", err)
	}
	_, err = cfg.Agent("broken")
	if err == nil || !strings.Contains(err.Error(), `agent "broken" is not usable`) || !strings.Contains(err.Error(), "description") {
		t.Errorf("broken agent error = %v", err)
	}
	empty := loadTree(t, writeTree(t, nil), nil)
	if _, err := empty.Agent("x"); err == nil || !strings.Contains(err.Error(), "(available: none)") {
		t.Errorf("no agents: %v", err)
	}
}

// TestAgentDuplicateNameCheck: check reports the agent that loses a name clash, at its name.
func TestAgentDuplicateNameCheck(t *testing.T) {
	yes := true
	cfg := loadTree(t, writeTree(t, map[string]string{
		userAgents + "scout.md": "---\nname: scout\ndescription: User scout\n---\n",
		userAgents + "other.md": "---\ndescription: Other\n---\n",
		projAgents + "scout.md": "---\ndescription: Project scout\n---\n",
	}), &yes)
	var got []string
	for _, d := range cfg.Check() {
		if d.Code == "duplicate-name" {
			l, c := d.Pos()
			got = append(got, fmt.Sprintf("%s/%s:%d:%d: %s: %s", filepath.Base(filepath.Dir(filepath.Dir(d.File()))), filepath.Base(d.File()), l, c, d.Severity, d.Message))
		}
	}
	want := []string{`agent/scout.md:2:7: warning: agent "scout" is also defined in ` + filepath.Join(cfg.ProjectDir, ".pi", "agents", "scout.md") + `: the project's agent wins and this file is not used`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("duplicate-name (-want +got):\n%s", diff)
	}
}
