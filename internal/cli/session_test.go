package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/appconfig"
)

// promptFor parses a run's prompt flags and builds its system prompt in home/.pi/agent.
func promptFor(t *testing.T, home, cwd string, argv ...string) string {
	t.Helper()
	flags := append(append([]*flag{}, globalFlags...),
		&flag{names: []string{"--system-prompt"}, value: true}, &flag{names: []string{"--append-system-prompt"}, value: true},
		&flag{names: []string{"-nc", "--no-context-files"}})
	a, err := parse(append([]string{"-C", cwd}, argv...), flags)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	c := &CLI{Getenv: func(k string) string { return env[k] }}
	cfg, err := config.Load(c.loadOptions(a))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Tools: []string{"read", "bash"}, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	return appconfig.Prompt(cfg, res, c.runConfig(a)).Text
}

func put(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunPrompt(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	put(t, filepath.Join(cwd, "AGENTS.md"), "project rules")
	got := promptFor(t, home, cwd, "--append-system-prompt", "extra words")
	for _, want := range []string{"You are an expert coding assistant operating inside pi", "- read: Read file contents",
		"\n\nextra words\n\n<project_context>", "project rules", "\nCurrent working directory: " + cwd} {
		if !strings.Contains(got, want) {
			t.Errorf("default prompt lacks %q:\n%s", want, got)
		}
	}
	if got := promptFor(t, home, cwd, "-nc", "--system-prompt", "Base."); got != "Base.\nCurrent working directory: "+cwd+"\n" {
		t.Errorf("custom prompt without context files: %q", got)
	}
	// The seed's system-prompt extension, installed from settings packages, takes over.
	put(t, filepath.Join(agent, "settings.json"), `{"packages": ["git:github.com/trim21/pi-extensions"]}`)
	put(t, filepath.Join(agent, "git", "github.com", "trim21", "pi-extensions", "src", "system-prompt", "prompt.md"), "SEED\n{{tools}}\ncwd={{cwd}}")
	// Blocks whose placeholder the template lacks (guidelines, date) follow at the end.
	want := "SEED\n- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\ncwd=" + cwd +
		"\n## Guidelines\n\nUse read to examine files instead of cat or sed.\n\nYou can inspect PI_* environment variables for current model and session details.\n"
	before := time.Now().Format("2006-01-02")
	got = promptFor(t, home, cwd, "-nc")
	if after := time.Now().Format("2006-01-02"); got != want+before && got != want+after {
		t.Errorf("seed template:\n got %q\nwant %q", got, want+after)
	}
	// ... unless its extension filter leaves the system prompt out.
	put(t, filepath.Join(agent, "settings.json"), `{"packages": [{"source": "git:github.com/trim21/pi-extensions", "extensions": ["!src/system-prompt/index.ts"]}]}`)
	if got := promptFor(t, home, cwd, "-nc"); !strings.HasPrefix(got, "You are an expert") {
		t.Errorf("filtered seed: %q", got)
	}
}
