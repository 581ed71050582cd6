package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// "Allow forever" patterns ticked in the escalation dialog are appended to the project's
// sandbox.json approvalRules by the comment-keeping editor, and the running session's rules
// allow the command at once.
func TestPersistAllowKeepsComments(t *testing.T) {
	root := t.TempDir()
	agentDir, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	sb := filepath.Join(proj, ".pi", "sandbox.json")
	if err := os.MkdirAll(filepath.Dir(sb), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "{\n  // keep me\n  \"approvalRules\": [\n    {\"action\": \"deny\", \"pattern\": \"rm *\"}\n  ]\n}\n"
	if err := os.WriteFile(sb, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	approve := true
	cfg, err := config.Load(config.Options{AgentDir: agentDir, ProjectDir: proj, Approve: &approve, Home: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{cfg: cfg, toolSess: &toolrun.Session{}}
	if err := (&CLI{}).persistAllow(r, []string{"git push *"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(sb)
	// The editor keeps the comment and the existing element's layout, and writes the new
	// element in its own indented style.
	// The new rule follows its one-line sibling's style (jsonedit).
	want := "{\n  // keep me\n  \"approvalRules\": [\n    {\"action\": \"deny\", \"pattern\": \"rm *\"},\n    {\"action\": \"allow\", \"pattern\": \"git push *\"}\n  ]\n}\n"
	if string(b) != want {
		t.Fatalf("sandbox.json:\n%s\nwant\n%s", b, want)
	}
	if got := r.toolSess.Rules.Evaluate("git push origin main").Decision; got != "allow" {
		t.Fatalf("the session's rules say %q", got)
	}
}
