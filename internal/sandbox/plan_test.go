package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testEnv is a host environment with a fixed uid/gid so goldens do not depend on the user.
func testEnv(t *testing.T) Environ {
	t.Helper()
	fixedSockets(t)
	return Environ{Home: t.TempDir(), Path: os.Getenv("PATH"), UID: 1000, GID: 1000}
}

// fixedSockets makes plans independent of the host's socket directories for the test.
func fixedSockets(t *testing.T) {
	t.Helper()
	old := socketCandidates
	socketCandidates = func(Environ) []string { return nil }
	t.Cleanup(func() { socketCandidates = old })
}

// newWorkspace makes a real temp workspace with .git and a denied file and directory.
func newWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{".git", ".pi", "secrets"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// normalise replaces machine-specific strings in an argv by stable names.
func normalise(argv []string, repl ...string) []string {
	r := strings.NewReplacer(repl...)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "argv", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

func TestArgvGolden(t *testing.T) {
	// The workspaces are made directly under /tmp whatever $TMPDIR says: the argv pins each
	// directory between the writable /tmp and the workspace, so a TMPDIR below /tmp would add
	// a bind the golden files do not have.
	t.Setenv("TMPDIR", "/tmp")
	for _, fs := range []string{FSReadonly, FSWorkspaceWrite, FSAllowAll} {
		for _, net := range []string{NetBlock, NetLimited, NetAllowAll} {
			t.Run(fs+"_"+net, func(t *testing.T) {
				ws := newWorkspace(t)
				env := testEnv(t)
				p := DefaultPolicy()
				p.FSMode, p.NetMode = fs, net
				p.ExtraWritablePaths = []string{"~/cache", "out"}
				p.DenyPaths = []string{".env", "secrets/", "missing/"}
				p.Allowlist = []string{"example.com", "*.github.com:443"}
				p.ExtraArgs = []string{"--hostname", "box"}
				pl, err := NewPlan(p, ws, env)
				if err != nil {
					t.Fatal(err)
				}
				res := pl.Preview("echo 'hi there'")
				repl := []string{ws, "$WS", env.Home, "$HOME", filepath.Dir(ws), "$TESTDIR"}
				if pl.Bwrap != "" {
					repl = append(repl, pl.Bwrap, "$BWRAP")
				}
				res.Argv = normalise(res.Argv, repl...)
				res.Env = normalise(res.Env, env.Home, "$HOME")
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					t.Fatal(err)
				}
				golden(t, fs+"_"+net+".json", []byte(b.String()))
			})
		}
	}
}

func TestReferenceArgv(t *testing.T) {
	// The reference's typical workspace-write + block example, with ws having a .git.
	ws := newWorkspace(t)
	env := testEnv(t)
	pl, err := NewPlan(DefaultPolicy(), ws, env)
	if err != nil {
		t.Fatal(err)
	}
	got := normalise(pl.Argv("cmd", 0), ws, "/ws")
	// pigo beyond the reference: the workspace (under /tmp here, so the /tmp bind would cover
	// its own) and the directories between are bound after /tmp, as mount points nothing can
	// rename; the workspace's bind before /tmp, which nothing would see, is left out.
	var pins []string
	for _, p := range normalise(pl.Pinned, ws, "/ws") {
		pins = append(pins, "--bind-try", p, p)
	}
	if len(pins) == 0 || pins[len(pins)-1] != "/ws" {
		t.Errorf("workspace not pinned: %v", pl.Pinned)
	}
	want := []string{pl.Bwrap, "--ro-bind", "/", "/", "--new-session", "--die-with-parent", "--unshare-user",
		"--unshare-pid", "--uid", "1000", "--gid", "1000", "--bind-try", "/tmp", "/tmp"}
	want = append(want, pins...)
	want = append(want, "--unshare-net", "--ro-bind-try", "/ws/.pi", "/ws/.pi", "--ro-bind-try", "/ws/.git", "/ws/.git",
		// pigo beyond the reference: the missing .agent gets an empty read-only tmpfs, and a
		// seccomp filter refuses Unix sockets.
		"--tmpfs", "/ws/.agent", "--remount-ro", "/ws/.agent",
		"--seccomp", "3", "--dev", "/dev", "--proc", "/proc", "--", "/bin/bash", "-lc", "cmd")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"HOME=" + env.Home, "SHELL=/bin/bash", "TERM=dumb", "LANG=C.UTF-8",
		"PATH=/usr/local/bin:/usr/bin:/bin"}, pl.Env); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
}

func TestPlanPaths(t *testing.T) {
	ws := newWorkspace(t)
	env := testEnv(t)
	// A symlink in the workspace pointing elsewhere: bwrap needs the real target.
	target := t.TempDir()
	target, _ = filepath.EvalSymlinks(target)
	if err := os.Symlink(target, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	p := DefaultPolicy()
	p.WritablePaths = []string{".", "~", "~/x", "rel/dir", "link", "/tmp"}
	p.DenyPaths = []string{"/nonexistent-deny/", ".env"}
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ws, env.Home, filepath.Join(env.Home, "x"), filepath.Join(ws, "rel/dir"), target, realIfExists("/tmp")}
	if d := cmp.Diff(want, pl.Writable); d != "" {
		t.Errorf("writable (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Mount{{Path: filepath.Join(ws, ".env")}}, pl.Deny); d != "" {
		t.Errorf("deny (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Skipped{{Path: "/nonexistent-deny/", Reason: "does not exist"}}, pl.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	// "." is the workspace argument, not the process's working directory.
	if cwd, _ := os.Getwd(); pl.Writable[0] == cwd {
		t.Errorf("'.' resolved to the process cwd")
	}
}

func TestProtectedGit(t *testing.T) {
	mk := func(t *testing.T, dirs ...string) string {
		ws := t.TempDir()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ws, _ = filepath.EvalSymlinks(ws)
		return ws
	}
	t.Run("root stops the scan", func(t *testing.T) {
		ws := mk(t, ".git", "sub/.git")
		if d := cmp.Diff([]string{filepath.Join(ws, ".git")}, gitPaths(ws)); d != "" {
			t.Error(d)
		}
	})
	t.Run("nested found, skip list honoured", func(t *testing.T) {
		ws := mk(t, "a/.git", "b/c/.git", "node_modules/x/.git", ".venv/y/.git", "target/.git", "build/z/.git")
		want := []string{filepath.Join(ws, "a/.git"), filepath.Join(ws, "b/c/.git")}
		if d := cmp.Diff(want, gitPaths(ws)); d != "" {
			t.Error(d)
		}
	})
	t.Run("symlinks not followed", func(t *testing.T) {
		ws := mk(t)
		other := mk(t, "repo/.git")
		if err := os.Symlink(filepath.Join(other, "repo"), filepath.Join(ws, "linked")); err != nil {
			t.Fatal(err)
		}
		if got := gitPaths(ws); len(got) != 0 {
			t.Errorf("followed a symlink: %v", got)
		}
	})
	t.Run("depth and hit limits", func(t *testing.T) {
		deep := strings.Repeat("d/", 24) // .git at depth 25: not found
		ok := strings.Repeat("d/", 23)   // .git at depth 24: found
		ws := mk(t, deep+".git", "e/"+ok[2:]+".git")
		got := gitPaths(ws)
		if d := cmp.Diff([]string{filepath.Join(ws, "e/"+ok[2:]+".git")}, got); d != "" {
			t.Error(d)
		}
		var many []string
		for i := 0; i < 70; i++ {
			many = append(many, filepath.Join("m", string(rune('a'+i/26)), string(rune('a'+i%26)), ".git"))
		}
		ws = mk(t, many...)
		if n := len(gitPaths(ws)); n != 64 {
			t.Errorf("hits = %d, want 64", n)
		}
	})
	t.Run("in the plan after .pi and .agent", func(t *testing.T) {
		ws := mk(t, "a/.git")
		pl, err := NewPlan(DefaultPolicy(), ws, testEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{filepath.Join(ws, "a/.git")}, pl.Protected); d != "" {
			t.Error(d)
		}
		// The missing ones get placeholders: a command cannot create them.
		want := []string{filepath.Join(ws, ".pi"), filepath.Join(ws, ".agent"), filepath.Join(ws, ".git")}
		if d := cmp.Diff(want, pl.Placeholders); d != "" {
			t.Error(d)
		}
	})
}

func TestPlanErrors(t *testing.T) {
	ws := t.TempDir()
	env := testEnv(t)
	check := func(t *testing.T, p Policy, env Environ, want string) {
		t.Helper()
		_, err := NewPlan(p, ws, env)
		if err == nil || err.Error() != want {
			t.Errorf("error = %v, want %q", err, want)
		}
	}
	t.Run("HOME unset", func(t *testing.T) {
		e := env
		e.Home = ""
		check(t, DefaultPolicy(), e, "HOME is not set; refusing to run in a clean environment")
	})
	t.Run("bwrap missing fails closed", func(t *testing.T) {
		e := env
		e.Path = t.TempDir()
		saved := bwrapFallbacks
		bwrapFallbacks = []string{"/nonexistent/bwrap"}
		defer func() { bwrapFallbacks = saved }()
		check(t, DefaultPolicy(), e, "bwrap (bubblewrap) not found; refusing to execute commands without sandboxing. Install bubblewrap and restart the session, or disable sandboxing explicitly with /bwrap-fs-allow-all and /bwrap-network-allow-all.")
		if _, err := NewPlan(DefaultPolicy(), ws, e); !errors.Is(err, ErrBwrapNotFound) {
			t.Errorf("not ErrBwrapNotFound: %v", err)
		}
		// Nothing to sandbox: no bwrap needed.
		p := DefaultPolicy()
		p.FSMode, p.NetMode = FSAllowAll, NetAllowAll
		pl, err := NewPlan(p, ws, e)
		if err != nil || pl.Sandboxed {
			t.Errorf("allow-all: %v %+v", err, pl)
		}
	})
	t.Run("configured bwrap missing", func(t *testing.T) {
		p := DefaultPolicy()
		p.BwrapPath = "/opt/nope/bwrap"
		check(t, p, env, "bwrap not found at configured path: /opt/nope/bwrap")
	})
	t.Run("bad allowlist in limited mode", func(t *testing.T) {
		p := DefaultPolicy()
		p.NetMode = NetLimited
		p.Allowlist = []string{"ok.example", "*"}
		check(t, p, env, `Invalid allowlist entry "*": "*" must be followed by a domain, e.g. "*.example.com"`)
	})
	t.Run("bad mode", func(t *testing.T) {
		p := DefaultPolicy()
		p.FSMode = "rw"
		check(t, p, env, `fs.mode: expected "readonly", "workspace-write" or "allow-all", got "rw"`)
	})
}

func TestFindHelpers(t *testing.T) {
	env := Environ{Home: t.TempDir(), Path: t.TempDir()}
	if _, err := FindMihomo("", env); err == nil || err.Error() != "mihomo not found in PATH. Install it from https://github.com/MetaCubeX/mihomo" {
		t.Errorf("mihomo: %v", err)
	}
	if _, err := FindSlirp4netns("", env); err == nil || err.Error() != "slirp4netns not found in PATH. Install it from https://github.com/rootless-containers/slirp4netns" {
		t.Errorf("slirp4netns: %v", err)
	}
	// A fake executable on the given PATH is found.
	fake := filepath.Join(env.Path, "mihomo")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := FindMihomo("", env); err != nil || got != fake {
		t.Errorf("FindMihomo = %q, %v", got, err)
	}
	if got, err := FindBwrap("", Environ{Path: "/usr/bin"}); err != nil || got != "/usr/bin/bwrap" {
		t.Errorf("FindBwrap = %q, %v", got, err)
	}
}

// TestRelativeAgentDir: a relative --agent-dir reaches the bwrap argv as an absolute path
// (bwrap would resolve a relative bind against its own working directory).
func TestRelativeAgentDir(t *testing.T) {
	ws := newWorkspace(t)
	p := DefaultPolicy()
	p.AgentDir = "testdata"
	pl, err := NewPlan(p, ws, testEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata")
	argv := strings.Join(pl.Argv("true", 0), " ")
	if !strings.Contains(argv, "--ro-bind-try "+abs+" "+abs) || strings.Contains(argv, " testdata ") {
		t.Errorf("argv: %s", argv)
	}
}
