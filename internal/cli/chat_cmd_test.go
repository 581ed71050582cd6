package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/printmode"
)

// appRun opens a session through the command line's wiring (flags → app.Options) over a
// temporary agent dir with a models.json of two custom models.
func appRun(t *testing.T, argv ...string) (*app.Session, *CLI, string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	agentDir, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	for _, d := range []string{agentDir, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	models := `{"providers": {"local": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "k",
  "models": [{"id": "small", "contextWindow": 1000}, {"id": "big", "contextWindow": 9000, "reasoning": false}]}}}`
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := parse(append([]string{"--agent-dir", agentDir, "-C", proj, "--approve", "--model", "local/small",
		"--session-dir", filepath.Join(root, "sessions")}, argv...), append(append([]*flag{}, globalFlags...), runFlags...))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": root}
	var stderr strings.Builder
	c := &CLI{Getenv: func(k string) string { return env[k] }, Stderr: &stderr}
	s, err := c.openApp(a, app.Options{Frontend: &printmode.Frontend{Stderr: c.Stderr}})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { s.Close() })
	return s, c, proj
}

// /model lists models.json's models before the catalogue's and marks the current one.
func TestChatModelPicker(t *testing.T) {
	s, _, _ := appRun(t)
	p, err := s.Pick(context.Background(), "model")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) < 3 || p.Items[0].Label != "local/small ✓" || p.Items[1].Arg != "local/big" {
		t.Fatalf("picker items %+v", p.Items[:min(3, len(p.Items))])
	}
	if err := s.SwitchModel("local/nope"); err == nil || err.Error() != "Model not found: local/nope" {
		t.Fatalf("unknown model: %v", err)
	}
}

// /reload loads the configuration again through the command line's flags: a context file
// written after the start is in the new system prompt, pi's status is returned, and the
// terminal under the chat gets nothing.
func TestChatReload(t *testing.T) {
	s, c, proj := appRun(t)
	if strings.Contains(s.SystemPrompt(), "reload-marker") {
		t.Fatal("marker before the file exists")
	}
	if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("reload-marker: be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := c.Stderr.(*strings.Builder)
	before := stderr.Len()
	text, err := s.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if text != app.ReloadText {
		t.Fatalf("status %q", text)
	}
	if stderr.Len() != before {
		t.Fatalf("reload wrote to the terminal: %q", stderr.String()[before:])
	}
	if !strings.Contains(s.SystemPrompt(), "reload-marker: be brief") {
		t.Fatalf("the system prompt has no new context file:\n%s", s.SystemPrompt())
	}
	if st := s.State(); st.Model != "local/small" {
		t.Fatalf("model after reload %+v", st)
	}
}
