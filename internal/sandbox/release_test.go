package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReleaseLater: a run with Options.ReleaseLater returns while its placeholders are still
// being removed (off the command's path), and everything that looks at the workspace after
// it — Settle, the next plan, the next run — waits until they are gone, so the next plan is
// the one a run that removed them itself would have left. The clean-up is held by the test
// (releaseHook) to make the order certain.
func TestReleaseLater(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir() // no .git, .pi or .agent: each gets a placeholder
	ws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	env := testEnvReal(t)
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	before, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Placeholders) != 3 {
		t.Fatalf("placeholders %q, want .pi, .agent and .git", before.Placeholders)
	}

	hold := make(chan struct{})
	held := make(chan struct{}, 1)
	releaseHook = func() { held <- struct{}{}; <-hold }
	defer func() { releaseHook = func() {} }()

	res, err := Run(context.Background(), before, "echo ran", Options{ReleaseLater: true})
	if err != nil || string(res.Stdout) != "ran\n" {
		t.Fatalf("Run: %q, %v", res.Stdout, err)
	}
	<-held // Run has returned and its clean-up has not run yet
	for _, m := range before.Placeholders {
		if fi, err := os.Lstat(m); err != nil || !isPlaceholder(fi) {
			t.Fatalf("%s: the placeholder should still be there while the release is held: %v", m, err)
		}
	}

	settled := make(chan struct{})
	planned := make(chan *Plan, 1)
	go func() { Settle(); close(settled) }()
	go func() {
		pl, err := NewPlan(p, ws, env)
		if err != nil {
			t.Error(err)
		}
		planned <- pl
	}()
	select {
	case <-settled:
		t.Fatal("Settle returned before the clean-up ran")
	case <-planned:
		t.Fatal("NewPlan returned before the clean-up ran")
	case <-time.After(100 * time.Millisecond):
	}
	close(hold)
	<-settled
	after := <-planned
	for _, m := range before.Placeholders {
		if _, err := os.Lstat(m); !os.IsNotExist(err) {
			t.Errorf("%s is still there after Settle: %v", m, err)
		}
	}
	if diff := cmp.Diff(before.Argv("true", 0), after.Argv("true", 0)); diff != "" {
		t.Errorf("the plan after the run differs from the one before it (-before +after):\n%s", diff)
	}

	// A run without ReleaseLater removes them before it returns, as before.
	releaseHook = func() { t.Error("a run without ReleaseLater released later") }
	if _, err := Run(context.Background(), after, "true", Options{}); err != nil {
		t.Fatal(err)
	}
	for _, m := range after.Placeholders {
		if _, err := os.Lstat(m); !os.IsNotExist(err) {
			t.Errorf("%s is still there after a plain run: %v", m, err)
		}
	}
}

// TestSettleUnderParallelRuns: runs that end together, each releasing later, and plans made
// meanwhile (the model's parallel bash calls) leave no placeholder behind once settled.
// Run with -race.
func TestSettleUnderParallelRuns(t *testing.T) {
	needBwrap(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnvReal(t)
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			pl, err := NewPlan(p, ws, env)
			if err == nil {
				_, err = Run(context.Background(), pl, "true", Options{ReleaseLater: true})
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	Settle()
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("left in the workspace after Settle: %q", names)
	}
}

// TestRunPrepareFailure: the placeholders are made beside the pids cgroup and pipes; when
// they cannot be made (here the workspace went away after the plan) the run fails as before,
// before anything starts, and leaves no cgroup of this process behind.
func TestRunPrepareFailure(t *testing.T) {
	needBwrap(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(ws, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	pl, err := NewPlan(p, ws, testEnvReal(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Placeholders) == 0 {
		t.Fatal("no placeholders planned")
	}
	if err := os.Remove(ws); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), pl, "echo ran", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "the sandbox could not be set up: ") || len(res.Stdout) != 0 {
		t.Fatalf("Run = %q, %v; want the set-up error and nothing run", res.Stdout, err)
	}
	if root := pidsRoot(); root.dir != "" {
		ents, _ := os.ReadDir(root.dir)
		prefix := fmt.Sprintf("pigo-%d-", os.Getpid())
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) {
				t.Errorf("cgroup %s left behind", e.Name())
			}
		}
	}
}
