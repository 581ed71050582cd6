package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// The bash tool's sandbox makes placeholders (an empty read-only .git, .pi and .agent in a
// workspace that has none) and removes them before it returns: the next tool call sees the
// workspace as the command left it, here ls lists only the file the command made, every
// time. (A removal after the tool returned, waited for by the next tool, was tried and
// dropped: D25.32.)
func TestToolAfterBashFindsNoPlaceholder(t *testing.T) {
	e := newEnv(t, "")
	if _, err := toolkit.BashPlan(e.s); err != nil {
		t.Skipf("no sandbox: %v", err)
	}
	for i := range 30 {
		r := e.call("bash", map[string]any{"command": "touch made"})
		if r.IsError {
			t.Fatalf("bash: %s", r.Text())
		}
		r = e.call("ls", map[string]any{"path": "."})
		if got := strings.TrimSpace(r.Text()); got != "made" {
			t.Fatalf("run %d: ls right after bash gave %q, want only \"made\"", i, got)
		}
		if err := os.Remove(filepath.Join(e.dir, "made")); err != nil {
			t.Fatal(err)
		}
	}
}
