package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/codemode"
)

// writeCall is one writing tool's call shape: the tool, and its arguments for writing
// content to path.
type writeCall struct {
	fileIO, tool string
	args         func(path, content string) map[string]any
}

var writeCalls = []writeCall{
	{"claude-code", "Write", func(p, c string) map[string]any { return map[string]any{"file_path": p, "content": c} }},
	{"claude-code", "Edit", func(p, c string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "", "new_string": c}
	}},
	{"opencode", "write", func(p, c string) map[string]any { return map[string]any{"filePath": p, "content": c} }},
	{"opencode", "edit", func(p, c string) map[string]any {
		return map[string]any{"filePath": p, "oldString": "", "newString": c}
	}},
}

// hostileTree lays out what a hostile model or a cloned repository leaves in the workspace:
// a dangling link to the agent dir's sandbox.json, a link to /dev/zero, a FIFO, git's
// config; and the safe twins: a dangling link that stays inside, a plain directory.
func hostileTree(t *testing.T, ws, agent string) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(agent, "sandbox.json"), filepath.Join(ws, "evil.json")))
	must(os.Symlink("/dev/zero", filepath.Join(ws, "zero")))
	must(syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644))
	must(os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644))
	must(os.Symlink("docs/inner.md", filepath.Join(ws, "inner.md")))
}

// within fails the test when fn does not return in time (a FIFO would block forever).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still running after 20 s", what)
	}
}

// TestWriteToolsHostileTargets is issue 20's write findings through every writing tool:
// the dangling link (critical), the protected paths, device files and FIFOs; each with its
// safe twin.
func TestWriteToolsHostileTargets(t *testing.T) {
	for _, wc := range writeCalls {
		t.Run(wc.fileIO+"/"+wc.tool, func(t *testing.T) {
			e := newFileEnv(t, wc.fileIO)
			agent := e.s.AgentDir
			hostileTree(t, e.dir, agent)
			cases := []struct{ path, want string }{
				// The test's agent dir lies under /tmp, so the link leads to a protected path
				// rather than outside (TestPiToolsHostileTargets has the outside case).
				{"evil.json", `Path "` + filepath.Join(e.dir, "evil.json") + `" is protected (the agent dir: `},
				{".git/hooks/pre-commit", "is protected (git's config and hooks run outside the sandbox). No UI available for approval."},
				{".pi/sandbox.json", "is protected ("},
				{"zero", "/dev/zero: is a character device, not a regular file"},
				{"fifo", "is a named pipe (FIFO), not a regular file"},
			}
			for _, c := range cases {
				var r toolrun.Result
				within(t, c.path, func() { r = e.call(wc.tool, wc.args(e.path(c.path), `{"fs":{"mode":"allow-all"}}`)) })
				if !r.IsError || !strings.Contains(r.Text(), c.want) {
					t.Errorf("%s: got %q (error %v), want %q", c.path, r.Text(), r.IsError, c.want)
				}
			}
			if _, err := os.Lstat(filepath.Join(agent, "sandbox.json")); err == nil {
				t.Error("the dangling link was written through")
			}
			// An existing .git/config: the read check or the create rule refuses first; once
			// read, the guard does.
			if r := e.call(wc.tool, wc.args(e.path(".git/config"), "x")); !r.IsError {
				t.Errorf(".git/config: %q", r.Text())
			}
			if wc.tool == "Write" || wc.tool == "write" {
				read := map[string]any{"file_path": e.path(".git/config")}
				if wc.fileIO == "opencode" {
					read = map[string]any{"filePath": e.path(".git/config")}
				}
				e.call(map[string]string{"Write": "Read", "write": "read"}[wc.tool], read)
				if r := e.call(wc.tool, wc.args(e.path(".git/config"), "x")); !strings.Contains(r.Text(), "is protected (git's") {
					t.Errorf(".git/config after a read: %q", r.Text())
				}
			}
			if got := e.read(".git/config"); got != "[core]\n" {
				t.Errorf(".git/config rewritten: %q", got)
			}
			if _, err := os.Lstat(e.path(".pi")); err == nil {
				t.Error(".pi created")
			}
			// The safe twins: a link that stays inside is written through; a plain file is.
			for _, p := range []string{"inner.md", "src/main.go"} {
				if r := e.call(wc.tool, wc.args(e.path(p), "ok\n")); r.IsError {
					t.Errorf("%s: %s", p, r.Text())
				}
			}
			if got := e.read("docs/inner.md"); got != "ok\n" {
				t.Errorf("through the inside link: %q", got)
			}
			if l, _ := os.Readlink(e.path("inner.md")); l != "docs/inner.md" {
				t.Errorf("the link was replaced: %q", l)
			}
		})
	}
}

// TestPiToolsHostileTargets: pi's own write, edit and read.
func TestPiToolsHostileTargets(t *testing.T) {
	// Outside /tmp (writes under /tmp never ask), so the agent dir is outside the workspace.
	root, err := os.MkdirTemp("/var/tmp", "pigo-hostile-")
	if err != nil {
		t.Skip("no /var/tmp")
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	root, _ = filepath.EvalSymlinks(root)
	e := newEnvSettings(t, filepath.Join(root, "ws"), "")
	hostileTree(t, e.dir, e.agent)
	for _, c := range []struct{ tool, args, want string }{
		{"write", `{"path":"evil.json","content":"x"}`, "is outside workspace. No UI available for approval."},
		{"write", `{"path":".git/hooks/pre-commit","content":"x"}`, "is protected ("},
		{"write", `{"path":"zero","content":"x"}`, "is a character device"},
		{"write", `{"path":"fifo","content":"x"}`, "is a named pipe"},
		{"edit", `{"path":"zero","edits":[{"oldText":"a","newText":"b"}]}`, "is a character device"},
		{"edit", `{"path":"fifo","edits":[{"oldText":"a","newText":"b"}]}`, "is a named pipe"},
		{"edit", `{"path":".git/config","edits":[{"oldText":"core","newText":"x"}]}`, "is protected ("},
		{"read", `{"path":"zero"}`, "is a character device"},
		{"read", `{"path":"fifo"}`, "is a named pipe"},
	} {
		var r toolrun.Result
		within(t, c.tool+" "+c.args, func() { r = e.call(c.tool, c.args) })
		if !r.IsError || !strings.Contains(r.Text(), c.want) {
			t.Errorf("%s %s: got %q, want %q", c.tool, c.args, r.Text(), c.want)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.agent, "sandbox.json")); err == nil {
		t.Error("the dangling link was written through")
	}
	if r := e.call("write", `{"path":"inner.md","content":"ok"}`); r.IsError || e.read("docs/inner.md") != "ok" {
		t.Errorf("safe twin: %q", r.Text())
	}
	if r := e.call("read", `{"path":"inner.md"}`); r.IsError || r.Text() != "ok" {
		t.Errorf("safe read: %q", r.Text())
	}
}

// TestReadToolsSpecialFiles: the read tools refuse devices and FIFOs before any byte.
func TestReadToolsSpecialFiles(t *testing.T) {
	for _, c := range []struct{ fileIO, tool, key string }{{"claude-code", "Read", "file_path"}, {"opencode", "read", "filePath"}} {
		e := newFileEnv(t, c.fileIO)
		hostileTree(t, e.dir, e.s.AgentDir)
		for _, p := range []string{"zero", "fifo"} {
			var r toolrun.Result
			within(t, c.tool+" "+p, func() { r = e.call(c.tool, map[string]any{c.key: e.path(p)}) })
			if !r.IsError {
				t.Errorf("%s %s: %q", c.tool, p, r.Text())
			}
		}
		e.write("ok.txt", "fine\n")
		if r := e.call(c.tool, map[string]any{c.key: e.path("ok.txt")}); r.IsError || !strings.Contains(r.Text(), "fine") {
			t.Errorf("%s: safe twin %q", c.tool, r.Text())
		}
	}
}

// TestCodemodeFSHostileTargets: codemode's fs.read and fs.write primitives.
func TestCodemodeFSHostileTargets(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	hostileTree(t, e.dir, e.s.AgentDir)
	ctx := context.Background()
	fsys := codemode.FS{}
	for p, want := range map[string]string{
		"evil.json":        "is protected (the agent dir",
		".pi/sandbox.json": "is protected (",
		"zero":             "is a character device",
		"fifo":             "is a named pipe",
	} {
		var err error
		within(t, p, func() { _, err = fsys.Write(ctx, e.s, p, "x") })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("fs.write %s: %v, want %q", p, err, want)
		}
	}
	for _, p := range []string{"zero", "fifo"} {
		var err error
		within(t, p, func() { _, _, err = fsys.Read(ctx, e.s, p) })
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fs.read %s: %v", p, err)
		}
	}
	if _, err := fsys.Write(ctx, e.s, "inner.md", "ok"); err != nil || e.read("docs/inner.md") != "ok" {
		t.Errorf("safe twin: %v", err)
	}
	if text, _, err := fsys.Read(ctx, e.s, "inner.md"); err != nil || text != "ok" {
		t.Errorf("safe read: %q %v", text, err)
	}
}

// TestWholeFileCeiling: an edit of a file over the ceiling is refused with a text that names
// it, before the file is loaded.
func TestWholeFileCeiling(t *testing.T) {
	e := newEnv(t, "")
	p := filepath.Join(e.dir, "big.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(toolrun.MaxWholeFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := e.call("edit", `{"path":"big.txt","edits":[{"oldText":"a","newText":"b"}]}`)
	if !r.IsError || !strings.Contains(r.Text(), "edit reads whole files up to 64 MiB") && !strings.Contains(r.Text(), "reads whole files up to 64 MiB") {
		t.Errorf("got %q", r.Text())
	}
}
