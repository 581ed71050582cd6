package cli

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/printmode"
)

func TestSplitModelFlag(t *testing.T) {
	for _, c := range []struct{ provider, model, ref, thinking string }{
		{"", "local/m", "local/m", ""},
		{"", "local/m:high", "local/m", "high"},
		{"", "m:xhigh", "m", "xhigh"},
		{"local", "m", "local/m", ""},
		{"local", "local/m:low", "local/m", "low"},
		{"", "ollama/qwen3:8b", "ollama/qwen3:8b", ""}, // a tag, not a level
		{"", "", "", ""},
	} {
		ref, th := splitModelFlag(c.provider, c.model)
		if ref != c.ref || th != c.thinking {
			t.Errorf("splitModelFlag(%q, %q) = %q, %q; want %q, %q", c.provider, c.model, ref, th, c.ref, c.thinking)
		}
	}
}

func TestIsRun(t *testing.T) {
	c := &CLI{}
	for _, x := range []struct {
		argv []string
		run  bool
	}{
		{nil, true},
		{[]string{"-p", "hello"}, true},
		{[]string{"--mode", "json", "hello"}, true},
		{[]string{"fix the failing test"}, true},
		{[]string{"/deploy staging"}, true},
		{[]string{"tools"}, false},
		{[]string{"tools", "-p"}, false},
		{[]string{"chekc"}, false},
		{[]string{"hello"}, true},
		{[]string{"-p", "chekc"}, true},
	} {
		name, _, _ := c.split(x.argv)
		if got := c.isRun(x.argv, name); got != x.run {
			t.Errorf("isRun(%q) = %v, want %v", x.argv, got, x.run)
		}
	}
}

// isRun looks the run flags up without building a map of their names on every start
// (D25.44): a session's argv is decided without allocating.
func TestIsRunAllocs(t *testing.T) {
	c := &CLI{}
	argv := []string{"-p", "--model", "session/m", "change-hello"}
	name, _, _ := c.split(argv)
	if !c.isRun(argv, name) {
		t.Fatalf("isRun(%q) = false", argv)
	}
	if n := testing.AllocsPerRun(20, func() { c.isRun(argv, name) }); n != 0 {
		t.Errorf("isRun: %v allocations a call, want 0", n)
	}
}

// The exit codes print mode ends with (and writes in its agent_settled lines) are the command
// line's.
func TestPrintModeExitCodes(t *testing.T) {
	if printmode.ExitOK != ExitOK || printmode.ExitFailed != ExitFailed || printmode.ExitInternal != ExitInternal {
		t.Fatal("printmode's exit codes differ from cli.md's")
	}
}
