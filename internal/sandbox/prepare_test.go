package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestPlanBesideARunsPlaceholder: a plan made while another run's placeholder stands where a
// protected path is missing (the model's parallel bash calls: run A has made .git, B plans)
// takes it for missing and makes it its own placeholder, under the parent's lock, so that
// A's removing it before B's bwrap mounts leaves B's command unable to create .git. Before,
// B bound the placeholder read-only with --ro-bind-try: gone by then, nothing was bound and
// B's command made .git/hooks on the host. Also checked: a placeholder directory that is not
// empty is not taken for one, and the nested repositories are looked for as when .git is
// missing.
func TestPlanBesideARunsPlaceholder(t *testing.T) {
	needBwrap(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy()
	p.WritablePaths = []string{"."}
	env := testEnvReal(t)
	alone, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	git := filepath.Join(ws, ".git")
	if err := os.Mkdir(git, placeholderMode); err != nil { // run A's placeholder
		t.Fatal(err)
	}
	if err := os.Chmod(git, placeholderMode); err != nil {
		t.Fatal(err)
	}
	b, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Placeholders, alone.Placeholders) || !slices.Equal(b.Argv("x", 0), alone.Argv("x", 0)) {
		t.Fatalf("beside a run's placeholder the plan is\n%q\nalone it is\n%q", b.Argv("x", 0), alone.Argv("x", 0))
	}
	if err := os.Remove(git); err != nil { // A's release, before B's bwrap mounts
		t.Fatal(err)
	}
	res, err := Run(context.Background(), b, "mkdir -p .git/hooks && echo x > .git/hooks/post-checkout", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(git, "hooks")); err == nil {
		t.Fatalf("the command made .git/hooks on the host (exit %d)", res.ExitCode)
	}
	if _, err := os.Lstat(git); !os.IsNotExist(err) {
		t.Fatalf(".git left behind: %v", err)
	}

	// Not empty: not a run's placeholder, bound read-only as any existing .git.
	if err := os.MkdirAll(filepath.Join(git, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(git, placeholderMode); err != nil {
		t.Fatal(err)
	}
	full, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(full.Protected, git) || slices.Contains(full.Placeholders, git) {
		t.Fatalf("a .git with content: protected %q placeholders %q", full.Protected, full.Placeholders)
	}
	os.Chmod(git, 0o755)
	os.RemoveAll(git)

	// The nested repositories are protected beside a run's placeholder .git as without one.
	if err := os.MkdirAll(filepath.Join(ws, "sub", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := ProtectedList(ws, "")
	if err := os.Mkdir(git, placeholderMode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(git, placeholderMode)
	defer os.Remove(git)
	if got := ProtectedList(ws, ""); !slices.Equal(got, want) {
		t.Fatalf("ProtectedList beside a run's placeholder\n%v\nwithout\n%v", got, want)
	}
}
