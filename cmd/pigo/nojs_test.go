package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoQuickJSLinked: pigo does not link codemode's QuickJS VM (modernc.org/quickjs and the
// transpiled C of modernc.org/libquickjs): its package initialisation cost every pigo start,
// and the VM runs in the pigo-engines helper's js engine (internal/codemode/jsvm, D25.22).
func TestNoQuickJSLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/pigo-agent/pigo/cmd/pigo").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("only %d packages listed", len(deps))
	}
	for _, p := range deps {
		if p == "modernc.org/quickjs" || p == "modernc.org/libquickjs" || strings.HasPrefix(p, "modernc.org/libquickjs/") ||
			p == "github.com/pigo-agent/pigo/internal/codemode/jsvm" {
			t.Errorf("pigo links %s", p)
		}
	}
}
