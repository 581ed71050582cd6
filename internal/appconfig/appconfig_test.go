package appconfig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/config"
)

// "Allow forever" patterns ticked in the escalation dialog are appended to the project's
// sandbox.json approvalRules by the comment-keeping editor (the session's approvals call this
// hook; app's tests show the running rules take them at once).
func TestSaveAllowKeepsComments(t *testing.T) {
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
	file, err := New(cfg, nil).SaveAllow([]string{"git push *"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(sb)
	// The editor keeps the comment and the existing element's layout; the new rule follows
	// its one-line sibling's style (jsonedit).
	want := "{\n  // keep me\n  \"approvalRules\": [\n    {\"action\": \"deny\", \"pattern\": \"rm *\"},\n    {\"action\": \"allow\", \"pattern\": \"git push *\"}\n  ]\n}\n"
	if string(b) != want || file != sb {
		t.Fatalf("%s:\n%s\nwant\n%s", file, b, want)
	}
}
