package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParallelRunsLeaveNothing: runs that plan, make their placeholders and end together
// (the model's parallel bash calls, under one parent lock) leave no placeholder behind. Run
// with -race.
func TestParallelRunsLeaveNothing(t *testing.T) {
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
				_, err = Run(context.Background(), pl, "true", Options{})
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("left in the workspace: %q", names)
	}
}

// TestRunPrepareFailure: when the placeholders cannot be made (here the workspace went away
// after the plan) the run fails before anything starts and leaves no cgroup of this process
// behind.
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
