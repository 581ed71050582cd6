package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// ownPidsCgroups lists the cgroup v1 pids cgroups this process made beside it ("pigo-PID-N");
// ok is false when there is no v1 pids hierarchy to look in.
func ownPidsCgroups(t *testing.T) (names []string, ok bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(l, ":", 3); len(f) == 3 && f[1] == "pids" {
			dir := filepath.Join("/sys/fs/cgroup/pids", f[2])
			if _, err := os.Stat(dir); err != nil {
				return nil, false
			}
			names, _ = filepath.Glob(filepath.Join(dir, fmt.Sprintf("pigo-%d-*", os.Getpid())))
			return names, true
		}
	}
	return nil, false
}

// TestCloseDropsTheAheadCgroup: the sandbox's warm-up at a session's first prompt makes the
// first command's pids cgroup ahead; a session that ran no command removes it at Close.
func TestCloseDropsTheAheadCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("pigo makes pids cgroups as root only")
	}
	if _, ok := ownPidsCgroups(t); !ok {
		t.Skip("no cgroup v1 pids hierarchy")
	}
	h := newHarness(t)
	s, _ := h.open(Options{}, "read", "bash")
	h.srv.Push(llmtest.Turn{Text: "one"})
	if _, err := s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.sandboxWarmed:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up did not end")
	}
	if made, _ := ownPidsCgroups(t); len(made) != 1 {
		t.Skipf("the warm-up made %q ahead (no pids cgroups for pigo here?)", made)
	}
	s.Close()
	if left, _ := ownPidsCgroups(t); len(left) != 0 {
		t.Errorf("cgroups left after Close: %q", left)
	}
}
