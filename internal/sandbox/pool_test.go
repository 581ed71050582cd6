package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// poolOfPlaceholders reports whether every entry of dir is an empty placeholder directory.
func poolOfPlaceholders(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil || !isRunPlaceholder(filepath.Join(dir, e.Name()), fi) {
			return false
		}
	}
	return true
}

// poolSetup is a workspace and an agent dir side by side on one file system, and a policy
// with the workspace writable: the plan has three placeholders (.pi, .agent, .git).
func poolSetup(t *testing.T) (ws, agentDir string, p Policy, env Environ) {
	t.Helper()
	needBwrap(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(root, "ws")
	agentDir = filepath.Join(root, "home", ".pi", "agent")
	must(t, os.MkdirAll(ws, 0o755))
	must(t, os.MkdirAll(agentDir, 0o755))
	p = DefaultPolicy()
	p.WritablePaths = []string{"."}
	p.AgentDir = agentDir
	env = testEnvReal(t)
	return ws, agentDir, p, env
}

// inodes lists dir's entries with their inode numbers ("name:ino"), sorted.
func inodes(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Name()+":"+strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10))
	}
	sort.Strings(out)
	return out
}

func wsNames(t *testing.T, ws string) []string {
	t.Helper()
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func poolRun(t *testing.T, p Policy, ws string, env Environ, command string) Result {
	t.Helper()
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), pl, command, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPlaceholderPool: with the agent dir on the workspace's file system, the placeholders go
// to <agent dir>/.sandbox-placeholders after the run and the next run takes the same
// directories back (no directory made or removed); the workspace is left as it was, and the
// command sees each placeholder as an empty directory it cannot write.
func TestPlaceholderPool(t *testing.T) {
	ws, agentDir, p, env := poolSetup(t)
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(agentDir, poolName); pl.pool != want {
		t.Fatalf("pool %q, want %q (placeholders %q)", pl.pool, want, pl.Placeholders)
	}
	probe := `for d in .pi .agent .git; do ls -A $d; mkdir $d/hooks 2>/dev/null && echo wrote $d; done; echo ok`
	res := poolRun(t, p, ws, env, probe)
	if got := string(res.Stdout); got != "ok\n" {
		t.Fatalf("first run saw %q", got)
	}
	if names := wsNames(t, ws); len(names) != 0 {
		t.Fatalf("left in the workspace: %q", names)
	}
	pool := filepath.Join(agentDir, poolName)
	first := inodes(t, pool)
	if len(first) != 3 || !poolOfPlaceholders(pool) {
		t.Fatalf("pool after the first run: %q", first)
	}
	res = poolRun(t, p, ws, env, probe)
	if got := string(res.Stdout); got != "ok\n" {
		t.Fatalf("second run saw %q", got)
	}
	if names := wsNames(t, ws); len(names) != 0 {
		t.Fatalf("left in the workspace: %q", names)
	}
	second := inodes(t, pool)
	ino := func(l []string) []string {
		var out []string
		for _, s := range l {
			out = append(out, s[strings.IndexByte(s, ':')+1:])
		}
		sort.Strings(out)
		return out
	}
	if !slices.Equal(ino(first), ino(second)) || !poolOfPlaceholders(pool) {
		t.Fatalf("the second run did not reuse the pool's directories: %q then %q", first, second)
	}
}

// TestPlaceholderPoolNothingLost: a placeholder that became non-empty during the run (written
// on the host) stays where it is with what was written, in the placeholder mode (root writes
// without a chmod) or not; and nothing of it goes to the pool.
func TestPlaceholderPoolNothingLost(t *testing.T) {
	for _, chmod := range []bool{false, true} {
		name := "chmod"
		if !chmod {
			name = "mode-kept"
		}
		t.Run(name, func(t *testing.T) {
			if !chmod && os.Geteuid() != 0 {
				t.Skip("writing into a 0500 directory without a chmod needs root")
			}
			ws, agentDir, p, env := poolSetup(t)
			poolRun(t, p, ws, env, "true") // fills the pool
			pool := filepath.Join(agentDir, poolName)
			if n := len(inodes(t, pool)); n != 3 {
				t.Fatalf("pool has %d entries", n)
			}
			git := filepath.Join(ws, ".git")
			done := make(chan Result, 1)
			go func() { done <- poolRun(t, p, ws, env, "sleep 1") }()
			deadline := time.Now().Add(5 * time.Second)
			for {
				if _, err := os.Lstat(git); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the run's .git never appeared")
				}
				time.Sleep(time.Millisecond)
			}
			if chmod {
				must(t, os.Chmod(git, 0o700))
			}
			must(t, os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			<-done
			b, err := os.ReadFile(filepath.Join(git, "HEAD"))
			if err != nil || string(b) != "ref: refs/heads/main\n" {
				t.Fatalf("what was written into .git during the run: %q, %v", b, err)
			}
			if names := wsNames(t, ws); !slices.Equal(names, []string{".git"}) {
				t.Fatalf("workspace after the run: %q", names)
			}
			if n := len(inodes(t, pool)); n != 2 || !poolOfPlaceholders(pool) {
				t.Fatalf("pool after the run: %q", inodes(t, pool))
			}
		})
	}
}

// TestPlaceholderPoolTampered: a pool entry that is not an empty placeholder of pigo's user
// (a file in it, another mode, a link, a file) is never taken into the workspace, nor
// touched; the run makes its placeholders from the valid entries or by mkdir.
func TestPlaceholderPoolTampered(t *testing.T) {
	ws, agentDir, p, env := poolSetup(t)
	pool := filepath.Join(agentDir, poolName)
	must(t, os.Mkdir(pool, 0o700))
	full := filepath.Join(pool, "a-full")
	must(t, os.Mkdir(full, 0o700))
	must(t, os.MkdirAll(filepath.Join(full, "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(full, "hooks", "post-checkout"), []byte("#!/bin/sh\nevil\n"), 0o755))
	must(t, os.Chmod(full, placeholderMode))
	mode := filepath.Join(pool, "b-mode")
	must(t, os.Mkdir(mode, 0o755))
	elsewhere := filepath.Join(t.TempDir(), "empty")
	must(t, os.Mkdir(elsewhere, placeholderMode))
	must(t, os.Chmod(elsewhere, placeholderMode))
	must(t, os.Symlink(elsewhere, filepath.Join(pool, "c-link")))
	must(t, os.WriteFile(filepath.Join(pool, "d-file"), nil, 0o500))
	before := inodes(t, pool)

	res := poolRun(t, p, ws, env, "ls -A .git; echo ok")
	if got := string(res.Stdout); got != "ok\n" {
		t.Fatalf("the command saw %q in .git", got)
	}
	if names := wsNames(t, ws); len(names) != 0 {
		t.Fatalf("left in the workspace: %q", names)
	}
	after := inodes(t, pool)
	for _, e := range before {
		if !slices.Contains(after, e) {
			t.Fatalf("tampered entry %s moved: pool %q", e, after)
		}
	}
	if len(after) != len(before)+3 {
		t.Fatalf("pool after the run: %q (before %q)", after, before)
	}
	if _, err := os.Stat(filepath.Join(full, "hooks", "post-checkout")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(full, 0o700)
}

// TestPlaceholderPoolRace: something written into a placeholder between release's check and
// its rename (the one step rmdir did at once) sends it back to its place, or, when its place
// was taken meanwhile too, beside it; never left in the pool.
func TestPlaceholderPoolRace(t *testing.T) {
	for _, taken := range []bool{false, true} {
		name := "back"
		if taken {
			name = "beside"
		}
		t.Run(name, func(t *testing.T) {
			ws, agentDir, p, env := poolSetup(t)
			pool := filepath.Join(agentDir, poolName)
			git := filepath.Join(ws, ".git")
			testBetweenPut = func(placeholder, entry string) {
				if placeholder != git {
					return
				}
				os.Chmod(entry, 0o700)
				os.WriteFile(filepath.Join(entry, "config"), []byte("[core]\n"), 0o644)
				if taken {
					os.Mkdir(git, 0o755)
				}
			}
			defer func() { testBetweenPut = nil }()
			poolRun(t, p, ws, env, "true")
			testBetweenPut = nil
			kept := git
			if taken {
				names := wsNames(t, ws)
				if len(names) != 2 || names[0] != ".git" || !strings.HasPrefix(names[1], ".git.pigo-kept-") {
					t.Fatalf("workspace: %q", names)
				}
				kept = filepath.Join(ws, names[1])
			} else if names := wsNames(t, ws); !slices.Equal(names, []string{".git"}) {
				t.Fatalf("workspace: %q", names)
			}
			if b, err := os.ReadFile(filepath.Join(kept, "config")); err != nil || string(b) != "[core]\n" {
				t.Fatalf("what was written: %q, %v", b, err)
			}
			if n := len(inodes(t, pool)); n != 2 || !poolOfPlaceholders(pool) {
				t.Fatalf("pool: %q", inodes(t, pool))
			}
		})
	}
}

// TestPlaceholderPoolParallel: runs in one workspace that start and end together take from
// and give back to one pool: nothing is left in the workspace, every pool entry is an empty
// placeholder, and the pool holds no more than the runs ever had out at once. Run with -race.
func TestPlaceholderPoolParallel(t *testing.T) {
	ws, agentDir, p, env := poolSetup(t)
	for round := range 3 {
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				pl, err := NewPlan(p, ws, env)
				if err == nil {
					_, err = Run(context.Background(), pl, "ls -A .git .pi .agent", Options{})
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if names := wsNames(t, ws); len(names) != 0 {
			t.Fatalf("round %d left in the workspace: %q", round, names)
		}
		pool := filepath.Join(agentDir, poolName)
		if n := len(inodes(t, pool)); n < 3 || n > 8*3 || !poolOfPlaceholders(pool) {
			t.Fatalf("round %d pool: %q", round, inodes(t, pool))
		}
	}
}

// TestPlaceholderPoolFull: past poolMax entries a placeholder is removed as before.
func TestPlaceholderPoolFull(t *testing.T) {
	ws, agentDir, p, env := poolSetup(t)
	pool := filepath.Join(agentDir, poolName)
	must(t, os.Mkdir(pool, 0o700))
	for i := range poolMax + 3 {
		d := filepath.Join(pool, "f"+strconv.Itoa(i))
		must(t, os.Mkdir(d, placeholderMode))
		must(t, os.Chmod(d, placeholderMode))
	}
	poolRun(t, p, ws, env, "true")
	if names := wsNames(t, ws); len(names) != 0 {
		t.Fatalf("left in the workspace: %q", names)
	}
	if n := len(inodes(t, pool)); n != poolMax {
		t.Fatalf("pool has %d entries, want %d", n, poolMax)
	}
}

// TestPlaceholderPoolOtherDevice: with the agent dir on another file system than the
// workspace, the placeholders are made and removed (a rename cannot cross devices) and no
// pool is made.
func TestPlaceholderPoolOtherDevice(t *testing.T) {
	ws, _, p, env := poolSetup(t)
	shm, err := os.MkdirTemp("/dev/shm", "pigo-pool-test-")
	if err != nil {
		t.Skip("no /dev/shm")
	}
	defer os.RemoveAll(shm)
	var a, b syscall.Stat_t
	if syscall.Stat(shm, &a) != nil || syscall.Stat(ws, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm on the workspace's device")
	}
	p.AgentDir = shm
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if pl.pool != "" || len(pl.Placeholders) == 0 {
		t.Fatalf("pool %q across devices (placeholders %q)", pl.pool, pl.Placeholders)
	}
	poolRun(t, p, ws, env, "true")
	if names := wsNames(t, ws); len(names) != 0 {
		t.Fatalf("left in the workspace: %q", names)
	}
	if _, err := os.Lstat(filepath.Join(shm, poolName)); err == nil {
		t.Fatal("a pool was made on another device")
	}
}
